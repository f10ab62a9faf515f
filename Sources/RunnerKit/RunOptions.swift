import RunnerModel
import RunnerReporting

/// How a run reports (CI format, output mode, reports written after it), as the command line
/// sets it.
public typealias ReportSettings = RunnerReporting.ReportSettings

/// What the command line asks of a run: the task file, the targets and every run flag.
public struct RunOptions: Sendable {
  /// The task file's path as given (default `tasks.yml`).
  public var taskFile: String
  /// The targets; empty runs the file's `default` tasks (or the task named `default`).
  public var targets: [String]
  /// `NAME=value` words: params of the targets that declare them, and of the file.
  public var params: [(name: String, value: String)] = []
  /// Words after `--`: the targets' `"$@"`.
  public var taskArguments: [String] = []
  /// The whole command line without the program's name: part of what decides that nothing changed.
  public var arguments: [String]
  /// `-j`: at most this many tasks at once (nil: the file's `concurrency`, else the number of CPUs).
  public var jobs: Int?
  /// `-k`: keep running independent tasks after a failure.
  public var keepGoing: Bool
  /// SIGTERM → SIGKILL grace for cancelled tasks.
  public var grace: Duration
  /// `--events FILE`.
  public var eventsPath: String?
  /// `--force`: run every selected task, even those up to date or in the cache.
  public var force: Bool
  /// `--no-cache`: neither restore from nor store in `.runner/cache`.
  public var noCache: Bool
  /// `--no-wait`: fail at once if another runner holds the lock.
  public var noWait: Bool
  /// `--yes`: answer yes to every task's `prompt:`.
  public var assumeYes = false
  /// CI formats and pictures of the run.
  public var reports: ReportSettings
  /// `--affected[=REF]`: only the selected tasks a change since REF touches, and their dependents.
  public var affected: Affected?
  /// `--remote-cache` and its settings (nil fields: the task file's `remote:`, else defaults).
  public var remote = Remote()
  /// The process exits as soon as the command returns (the command line): what a run made is
  /// kept until then rather than freed (`KeptUntilExit`). A host that runs many commands in one
  /// process leaves it false.
  public var exitsAfterRun = false
  /// Commands that answer with text (`--list`, `--graph`, `-n`, …) write it to standard output
  /// as it is made, in pieces of about 1 MiB, rather than hold it whole in `Answer.output`
  /// (a million tasks' `--graph tree` is a gigabyte). The command line sets it.
  public var streamsOutput = false
  /// `--check-inputs`: run the selected tasks traced, and report what each read and wrote
  /// that its `sources` and `outputs` do not declare.
  public var checkInputs = false

  public struct Remote: Sendable {
    /// `--remote-cache URL` (else `RUNNER_REMOTE_CACHE`, else the file's `remote.cache`).
    public var cache: String?
    /// `--remote-exec URL` (else `RUNNER_REMOTE_EXEC`, else the file's `remote.exec`).
    public var execute: String?
    /// `--remote-jobs N`.
    public var jobs: Int?
    /// `--remote-header 'Name: value'`, each; `RUNNER_REMOTE_HEADERS` adds one a line.
    public var headers: [String] = []
    /// `--remote-upload=false`: read only.
    public var upload: Bool?
    /// `--remote-ca FILE`.
    public var certificateAuthority: String?
    /// `--remote-timeout`: the deadline of each exchange.
    public var timeout: Duration?
    /// `--verify-cache PERCENT`: the share of remote results run here and compared instead.
    public var verifyCache: String?
    /// `--verify-cache-seed TEXT`: which results that share picks.
    public var verifyCacheSeed: String?
    public init() {}
  }

  public struct Affected: Sendable {
    /// nil: the merge base with the upstream branch, else HEAD.
    public var ref: String?
    public init(ref: String?) { self.ref = ref }
  }

  public init(
    taskFile: String = "tasks.yml", targets: [String] = [], arguments: [String] = [], jobs: Int? = nil,
    keepGoing: Bool = false, grace: Duration = .seconds(5), eventsPath: String? = nil, force: Bool = false,
    noCache: Bool = false, noWait: Bool = false, reports: ReportSettings = ReportSettings()
  ) {
    self.taskFile = taskFile
    self.targets = targets
    self.arguments = arguments
    self.jobs = jobs
    self.keepGoing = keepGoing
    self.grace = grace
    self.eventsPath = eventsPath
    self.force = force
    self.noCache = noCache
    self.noWait = noWait
    self.reports = reports
  }
}

extension RunOptions {
  /// A duration as the command line takes one (`5s`, `500ms`), or nil.
  public static func parseDuration(_ text: String) -> Duration? {
    RunnerModel.parseDuration(text)
  }

  /// The words after the options: `NAME=value` params, and the targets.
  public static func split(_ words: [String]) -> (params: [(name: String, value: String)], targets: [String]) {
    Invocation.split(words)
  }
}
