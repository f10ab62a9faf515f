import ArgumentParser
import Glibc
import RunnerKit

/// `runner [FILE] [TARGET...]`: load a task file and run, list or draw its graph.
struct RunnerCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "runner",
    abstract: "Run the tasks of a YAML task file as a dependency graph.",
    discussion: [
      "FILE defaults to the nearest tasks.yml (else tasks.yaml) in this directory or above it; the tasks run in "
        + "its directory, with RUNNER_INVOCATION_DIR set to the directory runner was started in. A first argument that ends in .yml or .yaml, or holds a '/' and no '=', is "
        + "the file; otherwise it is a target, so `runner build` and `runner tasks.yml build` both work. With no "
        + "target, the file's `default` tasks run, else its task named `default`. A target may be a pattern "
        + "('*:test': '*' within a ':' segment, '**' across). NAME=value sets a param of the targets or the file; "
        + "words after -- reach the targets' scripts as \"$@\". Shell completion: --generate-completion-script.",
      "Exit codes: 0 success, 1 a task failed, 2 invalid task file or usage, 128+N stopped by signal N "
        + "(129 SIGHUP, 130 SIGINT, 131 SIGQUIT, 143 SIGTERM).",
      "`runner import FILE` converts a Taskfile.yml, justfile or Makefile into tasks.yml (runner import --help); "
        + "a task named import is `runner :import`.",
      "The task file format: docs/tasks-file.md.",
    ].joined(separator: "\n\n"),
    version: Runner.version
  )

  @Argument(
    help: "The task file (optional), then the targets and NAME=value params; after --, the targets' arguments.",
    completion: .custom(RunnerCommand.completeTaskNames))
  var arguments: [String] = []

  @Option(
    name: [.customShort("f"), .long], help: "The task file (default: the nearest tasks.yml here or above).",
    completion: .file(extensions: ["yml", "yaml"]))
  var file: String?

  @Option(
    name: [.customShort("C"), .customLong("dir")], help: "Start in DIR, as if runner had been started there.",
    completion: .directory)
  var directory: String?

  @Flag(name: .customLong("init"), help: "Write a starter tasks.yml here (never over an existing one).")
  var initialize = false

  @Flag(name: [.customShort("n"), .long], help: "Print the plan and run nothing.")
  var dryRun = false

  @Flag(
    help: ArgumentHelp(
      "Run only the selected tasks whose sources changed since the merge base with the upstream branch "
        + "(--affected=REF: since REF), uncommitted and untracked files included, and what depends on them."))
  var affected = false

  @Flag(
    help: "After the run, watch the selected tasks' sources and re-run what each change touches, until Ctrl-C.")
  var watch = false

  @Option(help: "Print the selected graph and exit: tree, dot, mermaid, json, svg, png (Graphviz) or html.")
  var graph: GraphFormat?

  @Flag(help: "List the tasks with their descriptions.")
  var list = false

  @Option(
    help: ArgumentHelp(
      "Show everything about one task: what it runs, its edges, its settings, where it is defined.",
      valueName: "task"), completion: .custom(RunnerCommand.completeTaskNames))
  var describe: String?

  @Option(
    help: ArgumentHelp(
      "Say why a task ran or was restored the last time, what a run would do with it now and why, and what "
        + "makes it run again.",
      valueName: "task"), completion: .custom(RunnerCommand.completeTaskNames))
  var explain: String?

  @Flag(help: "With --list: print JSON.")
  var json = false

  @Option(
    name: [.customShort("j", allowingJoined: true), .long],
    help: ArgumentHelp(
      "Run at most N jobs at once: tasks, and the jobs their make, ninja or cargo start (default: make's jobserver when make runs runner, else the file's 'concurrency', else the number of CPUs)."
    ))
  var jobs: Int?

  @Flag(name: [.customShort("k"), .long], help: "Keep running independent tasks after a failure.")
  var keepGoing = false

  @Option(help: "How long a cancelled task gets after SIGTERM before SIGKILL (e.g. 5s, 500ms).")
  var grace: String = "5s"

  @Option(help: "Write every state change and output line to FILE as JSON Lines.", completion: .file())
  var events: String?

  @Flag(help: "Run every selected task, even those up to date or in the cache.")
  var force = false

  @Flag(
    help: ArgumentHelp(
      "Run the selected tasks traced and report the files each reads that its sources do not cover, and writes "
        + "that its outputs do not declare (exit 1 if any)."))
  var checkInputs = false

  @Flag(help: "Neither restore from nor store in the local cache (.runner/cache).")
  var noCache = false

  @Flag(help: "Remove the local cache (.runner/cache) and exit.")
  var cleanCache = false

  @Flag(help: "Fail at once if another runner holds this directory's lock, rather than wait.")
  var noWait = false

  @Flag(name: [.customShort("y"), .long], help: "Answer yes to every task's prompt.")
  var yes = false

  @OptionGroup(title: "Reports")
  var report: ReportOptions

  @OptionGroup(title: "Remote cache and execution")
  var remote: RemoteOptions

  func validate() throws {
    if let jobs, jobs < 1 { throw ValidationError("-j/--jobs must be at least 1, found \(jobs)") }
    if RunOptions.parseDuration(grace) == nil {
      throw ValidationError("--grace takes a duration such as 5s or 500ms, found '\(grace)'")
    }
    if let jobs = remote.remoteJobs, jobs < 1 {
      throw ValidationError("--remote-jobs must be at least 1, found \(jobs)")
    }
    if let timeout = remote.remoteTimeout, RunOptions.parseDuration(timeout) == nil {
      throw ValidationError("--remote-timeout takes a duration such as 30s or 500ms, found '\(timeout)'")
    }
    if json && !list { throw ValidationError("--json goes with --list (use --graph json for the graph)") }
    if checkInputs && (watch || dryRun || list || graph != nil || describe != nil || explain != nil) {
      throw ValidationError(
        "--check-inputs runs tasks: it goes with neither --watch, -n, --list, --graph, --describe nor --explain")
    }
    if initialize && (file != nil || !arguments.isEmpty) {
      throw ValidationError("--init writes ./tasks.yml: it takes no task file and no targets")
    }
  }

  /// The command line to parse, and the words after `--` (the targets' `"$@"`), taken out
  /// before parsing.
  /// `--affected=REF` as `--affected` (swift-argument-parser has no flag with an optional
  /// attached value) and the REF. A bare `--affected` never takes the next word (DECISIONS).
  static func affectedRef(_ words: [String]) -> (words: [String], ref: String?) {
    var ref: String?
    let words = words.map { word -> String in
      guard word.hasPrefix("--affected=") else { return word }
      ref = String(word.dropFirst("--affected=".count))
      return "--affected"
    }
    return (words, ref)
  }

  static func splitArguments(_ arguments: [String]) -> (parsed: [String], task: [String]) {
    // Shell completion speaks to swift-argument-parser through `---completion -- WORDS`.
    guard arguments.first != "---completion" else { return (arguments, []) }
    let marker = arguments.firstIndex(of: "--") ?? arguments.endIndex
    // `-V` is `--version`, as in most tools (swift-argument-parser knows only the long one).
    let parsed = arguments[..<marker].map { $0 == "-V" ? "--version" : $0 }
    return (parsed, marker < arguments.endIndex ? Array(arguments[(marker + 1)...]) : [])
  }

  /// Splits the positional arguments into the task file, when one is named, and the targets.
  func fileAndTargets() -> (String?, [String]) {
    if let file { return (file, arguments) }
    guard let first = arguments.first else { return (nil, []) }
    // A build output named like a task (`./goreleaser` beside a `goreleaser` task) is no task file.
    let isFile = first.hasSuffix(".yml") || first.hasSuffix(".yaml") || (first.contains("/") && !first.contains("="))
    if isFile {
      return (first, Array(arguments.dropFirst()))
    }
    return (nil, arguments)
  }

  /// Runs the command through the façade.
  ///
  /// - Returns: the exit code, and the runner (the caller exits while it still holds it).
  /// - Parameter affectedRef: the REF of `--affected=REF` (the word is `--affected` by then).
  func execute(taskArguments: [String] = [], affectedRef: String? = nil) async -> (code: Int32, runner: Runner?) {
    if let problem = Runner.enter(directory: directory) { return (Runner.fail(problem), nil) }
    if initialize { return (Self.printed(StarterFile.create()), nil) }
    let (named, words) = fileAndTargets()
    let path: String
    switch named.map({ .success($0) }) ?? TaskFileLocator.find() {
    case .success(let found): path = found
    case .failure(let problem): return (Runner.fail(problem.text), nil)
    }
    let (params, targets) = RunOptions.split(words)
    var options = RunOptions(
      taskFile: path, targets: targets, arguments: Array(CommandLine.arguments.dropFirst()), jobs: jobs,
      keepGoing: keepGoing, grace: RunOptions.parseDuration(grace) ?? .seconds(5), eventsPath: events,
      force: force, noCache: noCache, noWait: noWait, reports: report.settings())
    options.params = params
    options.taskArguments = taskArguments
    options.assumeYes = yes
    options.checkInputs = checkInputs
    options.exitsAfterRun = true
    options.streamsOutput = true
    if affected { options.affected = .init(ref: affectedRef) }
    options.remote = remote.settings()
    let runner = Runner(options)
    if cleanCache { return (Self.printed(await runner.cleanCache()), runner) }
    if let describe { return (Self.printed(runner.describe(describe)), runner) }
    if let explain { return (Self.printed(await runner.explain(explain)), runner) }
    if list { return (Self.printed(runner.list(json: json)), runner) }
    if let graph { return (Self.printed(await runner.graph(graph)), runner) }
    if dryRun { return (Self.printed(await runner.dryRun()), runner) }
    // A run prints as it goes.
    if watch { return (await runner.watch(), runner) }
    return (await runner.run(), runner)
  }

  /// Writes what a command answered (its output, then its problems) and gives its exit code.
  static func printed(_ answer: Answer) -> Int32 {
    if !answer.output.isEmpty { Runner.write(answer.output, to: 1) }
    if !answer.errors.isEmpty { Runner.write(answer.errors, to: 2) }
    return answer.exitCode
  }
}

extension GraphFormat: ExpressibleByArgument {}
