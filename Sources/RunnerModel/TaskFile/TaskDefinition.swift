/// One task as written in the task file, checked against the schema.
///
/// What most tasks set is stored in the struct; what few set (timeout, retries, params,
/// matrix, condition, …) lives in one copy-on-write box that every task without them shares:
/// a generated file of a million tasks pays a pointer for them, not 200 bytes.
package struct TaskDefinition: Sendable, Identifiable {
  package var id: String { name }
  package var name: String
  /// Where the task's key is written.
  package var location: SourceLocation
  /// Index in file order: the last tie-breaker of the scheduler, the order of listings.
  package var index: Int
  package var dependencies: [Dependency] = []
  package var action: TaskAction = .group
  package var environment: [EnvironmentEntry] = []
  /// Working directory, relative to the task file's directory.
  package var directory: String?
  package var priority: Int = 0
  package var sources: [String] = []
  package var outputs: [String] = []
  /// The file the task is written in: an index into `TaskFile.scopes` (0: the root file).
  package var scope = 0
  /// `internal: true`: only other tasks may depend on it; hidden from `--list` and the command line.
  package var isInternal = false
  /// `always: true`, a cleanup: it runs once its dependencies have ended, whatever their
  /// outcome, also when the run was stopped (fail-fast, Ctrl-C); a second Ctrl-C skips it.
  package var always = false
  /// `service: true`: a command that does not end on its own (a server, a database). Ready when
  /// its `wait_for` gates pass after it starts; stopped once no task that still has to run
  /// depends on it, and always before runner exits.
  package var isService = false
  /// `interactive: true`: the command gets runner's terminal (stdin, stdout, stderr, the
  /// foreground), runs while no other task runs, and its output is not captured.
  package var isInteractive = false
  private var rare = RareBox.none

  /// The fields few tasks set.
  struct Rare {
    var description: String? = nil
    var keyEnvironment: [String] = []
    var timeout: Duration? = nil
    var retries: Int = 0
    var waitFor: [ReadinessGate] = []
    var resources: [String] = []
    var shell: [String]? = nil
    var params: [ParamDeclaration] = []
    var dotenv: [DotEnvReference] = []
    var matrix: MatrixDeclaration? = nil
    var condition: TaskCondition? = nil
    var arguments: [String] = []
    var taskName: String? = nil
    var values: [(String, String)] = []
    var missingParams: [ParamDeclaration] = []
    var writtenRun: [Command] = []
    var shadowedEnvironment: [EnvironmentEntry] = []
  }

  /// Shared while nobody writes; copied by the first write to a shared one.
  final class RareBox: @unchecked Sendable {
    var value: Rare
    init(_ value: Rare) { self.value = value }
    static let none = RareBox(Rare())
  }

  private mutating func editRare(_ change: (inout Rare) -> Void) {
    if rare === RareBox.none || !isKnownUniquelyReferenced(&rare) { rare = RareBox(rare.value) }
    change(&rare.value)
  }

  package var description: String? {
    get { rare.value.description }
    set { editRare { $0.description = newValue } }
  }
  /// `key_env`: inherited variables that count in this task's key.
  package var keyEnvironment: [String] {
    get { rare.value.keyEnvironment }
    set { editRare { $0.keyEnvironment = newValue } }
  }
  package var timeout: Duration? {
    get { rare.value.timeout }
    set { editRare { $0.timeout = newValue } }
  }
  package var retries: Int {
    get { rare.value.retries }
    set { editRare { $0.retries = newValue } }
  }
  package var waitFor: [ReadinessGate] {
    get { rare.value.waitFor }
    set { editRare { $0.waitFor = newValue } }
  }
  package var resources: [String] {
    get { rare.value.resources }
    set { editRare { $0.resources = newValue } }
  }
  /// The shell `run` commands go to, with `-c`; nil: the file's, else `sh -e -c`.
  package var shell: [String]? {
    get { rare.value.shell }
    set { editRare { $0.shell = newValue } }
  }
  package var params: [ParamDeclaration] {
    get { rare.value.params }
    set { editRare { $0.params = newValue } }
  }
  package var dotenv: [DotEnvReference] {
    get { rare.value.dotenv }
    set { editRare { $0.dotenv = newValue } }
  }
  package var matrix: MatrixDeclaration? {
    get { rare.value.matrix }
    set { editRare { $0.matrix = newValue } }
  }
  package var condition: TaskCondition? {
    get { rare.value.condition }
    set { editRare { $0.condition = newValue } }
  }
  /// Words after `--` on the command line, for a target: the script's `"$@"`.
  package var arguments: [String] {
    get { rare.value.arguments }
    set { editRare { $0.arguments = newValue } }
  }
  /// The task as written, for a node the loader made of it (`build` for `build[mode=release]`).
  package var taskName: String? {
    get { rare.value.taskName }
    set { editRare { $0.taskName = newValue } }
  }
  /// The param and matrix values that make this node, in the order shown.
  package var values: [(String, String)] {
    get { rare.value.values }
    set { editRare { $0.values = newValue } }
  }
  /// Required params this node has no value for: selecting it is a usage error.
  package var missingParams: [ParamDeclaration] {
    get { rare.value.missingParams }
    set { editRare { $0.missingParams = newValue } }
  }
  /// For a task split at its task calls: its whole `run` list as written (the node runs the
  /// part after the last call).
  package var writtenRun: [Command] {
    get { rare.value.writtenRun }
    set { editRare { $0.writtenRun = newValue } }
  }
  /// `.env` values the node does not get because runner's environment sets them.
  package var shadowedEnvironment: [EnvironmentEntry] {
    get { rare.value.shadowedEnvironment }
    set { editRare { $0.shadowedEnvironment = newValue } }
  }

  package init(name: String, location: SourceLocation, index: Int) {
    self.name = name
    self.location = location
    self.index = index
  }

  package var hasCommandCondition: Bool {
    if case .command = condition { return true }
    return false
  }
}

/// An edge as written: the name of the task depended on, and where; `with:` sets its params.
package struct Dependency: Sendable, Hashable {
  package var name: String
  package var location: SourceLocation
  package var with: [ParamValue] = []

  package init(name: String, location: SourceLocation, with: [ParamValue] = []) {
    self.name = name
    self.location = location
    self.with = with
  }
}

/// What a task does when it runs.
package enum TaskAction: Sendable {
  /// Only groups its dependencies.
  case group
  /// Shell commands, run in order with the task's shell (`sh -e -c`); the first failure stops the task.
  case shell([Command])
  /// Built-in image steps, applied in order.
  case image([ImageStep])

  package var kindName: String {
    switch self {
    case .group: return "group"
    case .shell: return "shell"
    case .image: return "image"
    }
  }
}

package struct Command: Sendable, Hashable {
  package var text: String
  package var location: SourceLocation
  /// `- task: NAME` in a `run` list: run that task here (the loader splits the task at it).
  package var call: Dependency?

  package init(text: String, location: SourceLocation, call: Dependency? = nil) {
    self.text = text
    self.location = location
    self.call = call
  }
}

/// `NAME: value` in an `env` mapping; the value may read dependencies' outputs.
package struct EnvironmentEntry: Sendable {
  package var name: String
  package var value: Template
  package var location: SourceLocation
  package var origin: EnvironmentOrigin = .env

  package init(name: String, value: Template, location: SourceLocation, origin: EnvironmentOrigin = .env) {
    self.name = name
    self.value = value
    self.location = location
    self.origin = origin
  }
}

/// A condition that must hold before a task may start (Operation's `isReady`).
package struct ReadinessGate: Sendable, Hashable, CustomStringConvertible {
  package enum Condition: Sendable, Hashable {
    case file(String)
    case tcp(host: String, port: Int)
    case command(String)
  }

  package var condition: Condition
  /// nil: no limit (`timeout: 0`).
  package var timeout: Duration?
  package var location: SourceLocation

  package var description: String {
    switch condition {
    case .file(let path): return "file '\(path)'"
    case .tcp(let host, let port): return "tcp \(host):\(port)"
    case .command(let command): return "command '\(command)'"
    }
  }
}
