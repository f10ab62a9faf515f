/// One task as written in the task file, checked against the schema.
///
/// What most tasks set is stored in the struct; what few set (timeout, retries, params,
/// matrix, condition, …) lives in one copy-on-write box that every task without them shares:
/// a generated file of a million tasks pays a pointer for them, not 200 bytes.
@dynamicMemberLookup
public struct TaskDefinition: Sendable, Identifiable {
  public var id: String { name }
  package var name: String
  /// The name the task file gives it, which `$RUNNER_TASK` says: a part a task call splits
  /// off (`build#2`) answers to its task's (`build`).
  package var declaredName: String {
    guard let hash = name.lastIndex(of: "#"), name[name.index(after: hash)...].allSatisfy(\.isNumber) else {
      return name
    }
    return String(name[..<hash])
  }
  /// Where the task's key is written.
  package var location: SourceLocation
  // The flags next to the 8-byte location, in the 8 bytes before the next pointer.
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
  /// Index in file order: the last tie-breaker of the scheduler, the order of listings.
  package var index: Int {
    get { Int(storedIndex) }
    set { storedIndex = Int32(newValue) }
  }
  /// The file the task is written in: an index into `TaskFile.scopes` (0: the root file).
  package var scope: Int {
    get { Int(storedScope) }
    set { storedScope = Int32(newValue) }
  }
  // Both 32-bit, in one word: 120 bytes a task.
  private var storedIndex: Int32
  private var storedScope: Int32 = 0
  package var dependencies: PackedList<Dependency> = []
  package var action: TaskAction = .group
  package var environment: [EnvironmentEntry] = []
  /// Working directory, relative to the task file's directory.
  package var directory: String?
  package var sources: [String] = []
  package var outputs: [String] = []
  @usableFromInline var rare = RareBox.none

  /// The fields few tasks set, read and written as if they were the task's own
  /// (`task.timeout`, through `subscript(dynamicMember:)`).
  public struct Rare: Sendable {
    package var description: String? = nil
    /// Higher starts first among ready tasks.
    package var priority: Int = 0
    /// `aliases`: other names the command line (and `deps`, calls) may give the task.
    package var aliases: [String] = []
    /// `key_env`: inherited variables that count in this task's key.
    package var keyEnvironment: [String] = []
    /// `secrets`: variables whose values are passed to the task but kept out of its key, its
    /// uploads and everything runner prints (the file's are in `TaskFile.secretNames`).
    package var secretNames: [String] = []
    package var timeout: Duration? = nil
    package var retries: Int = 0
    package var waitFor: [ReadinessGate] = []
    package var resources: [String] = []
    /// The shell `run` commands go to, with `-c`; nil: the file's, else `sh -e -c`.
    package var shell: [String]? = nil
    package var params: [ParamDeclaration] = []
    package var dotenv: [DotEnvReference] = []
    package var matrix: MatrixDeclaration? = nil
    package var condition: TaskCondition? = nil
    /// `preconditions`: commands that must succeed before the task runs, each with its message.
    package var preconditions: [Precondition] = []
    /// `prompt`: a question asked before the run; the task runs only if answered yes.
    package var prompt: String? = nil
    /// `depfile`: a Makefile-syntax file the command writes (`cc -MMD -MF`), relative to the
    /// task's directory; the files it names count among the task's inputs from then on.
    package var depfile: String? = nil
    /// `sources: auto`: the task's inputs are the files its processes were seen to read at its
    /// last run (traced), not patterns.
    package var sourcesAuto = false
    /// `sandbox: strict`: the task may read of the project only its sources and its
    /// dependencies' outputs, and write only its outputs and its temporary directory.
    package var sandboxStrict = false
    /// `jobserver`: how its tools share runner's job slots (`MAKEFLAGS`).
    package var jobserver = JobserverSetting.automatic
    /// A `for:` on a call or a `deps` entry that lists files or runs a command when the file
    /// loads: what the graph holds may change with no change to the file.
    package var repeatsAtLoad = false
    /// Words after `--` on the command line, for a target: the script's `"$@"`.
    package var arguments: [String] = []
    /// The task as written, for a node the loader made of it (`build` for `build[mode=release]`).
    package var taskName: String? = nil
    /// The param and matrix values that make this node, in the order shown.
    package var values: [(String, String)] = []
    /// Required params this node has no value for: selecting it is a usage error.
    package var missingParams: [ParamDeclaration] = []
    /// For a task split at its task calls: its whole `run` list as written (the node runs the
    /// part after the last call).
    package var writtenRun: [Command] = []
    /// `.env` values the node does not get because runner's environment sets them.
    package var shadowedEnvironment: [EnvironmentEntry] = []
    /// For a called node: the callers' parts that end before each call of it (`deploy#1`). When
    /// one is in the same run, this node starts after it; neither pulls the other into a run.
    package var after: [String] = []
    /// For a part of a task split at its calls: the nodes it calls once it has ended.
    package var calledWhenEnded: [String] = []
    /// For a part after a call: the dependencies it has through that call (needed only once the
    /// call is reached).
    package var callDependencies: [String] = []
    /// For the first part: the task's other parts, skipped with it when the task's `if:` is false.
    package var laterParts: [String] = []
    /// For a node made by a `with:` that reads outputs: the nodes whose outputs its values read.
    package var runtimeDependencies: [String] = []
    /// For each part of a task split at its calls that has `sources`: the whole is up to date
    /// or restored as one (`WholeTask`).
    package var wholeTask: WholeTask? = nil
  }

  /// Shared while nobody writes; copied by the first write to a shared one.
  @usableFromInline final class RareBox: @unchecked Sendable {
    @usableFromInline var value: Rare
    /// True only for `none`: asked rather than `=== none`, whose global costs a `swift_once`
    /// call, which makes the optimizer copy a task it only meant to read.
    @usableFromInline let isNone: Bool
    @usableFromInline init(_ value: Rare, isNone: Bool = false) {
      self.value = value
      self.isNone = isNone
    }
    @usableFromInline static let none = RareBox(Rare(), isNone: true)
  }

  // Inlined, on a public type (a `package` type's inlinable members are called, not inlined,
  // from another module): where the key path is a literal the optimizer reads the field
  // directly. Through `swift_readAtKeyPath` a field cost more than the task's whole line in
  // `-n`'s plan, and a finished task's `resources` 2 % of the reactor thread's time.
  @inlinable public subscript<Value>(dynamicMember field: WritableKeyPath<Rare, Value>) -> Value {
    @inline(__always) get { rare.value[keyPath: field] }
    @inline(__always) set {
      if rare.isNone || !isKnownUniquelyReferenced(&rare) { rare = RareBox(rare.value) }
      rare.value[keyPath: field] = newValue
    }
  }

  /// Whether any rarely set field is set: most tasks set none, and a reader that looks at
  /// several skips them all on one comparison.
  package var setsRareFields: Bool { !rare.isNone }

  package init(name: String, location: SourceLocation, index: Int) {
    self.name = name
    self.location = location
    self.storedIndex = Int32(index)
  }

  package var hasCommandCondition: Bool {
    if case .command = self.condition { return true }
    return false
  }
}

/// An edge as written: the name of the task depended on, and where; `with:` sets its params.
package struct Dependency: Sendable, Hashable {
  package var name: String
  package var location: SourceLocation
  /// `with` and `args: pass`, which few edges set, out of line: 32 bytes a dependency, 2 000 000
  /// of them in a large file.
  private var options: OutOfLine<Options>?

  private struct Options: Hashable, Sendable {
    var with: [ParamValue] = []
    var passesArguments = false
  }

  package init(name: String, location: SourceLocation, with: [ParamValue] = []) {
    self.name = name
    self.location = location
    options = .keeping(Options(with: with), unless: Options())
  }

  package var with: [ParamValue] {
    get { options?.value.with ?? [] }
    set { OutOfLine.update(&options, empty: Options()) { $0.with = newValue } }
  }

  /// `args: pass`: the words after `--` this task gets, the task depended on or called gets too.
  package var passesArguments: Bool {
    get { options?.value.passesArguments ?? false }
    set { OutOfLine.update(&options, empty: Options()) { $0.passesArguments = newValue } }
  }
}

/// What a task does when it runs.
package enum TaskAction: Sendable {
  /// Only groups its dependencies.
  case group
  /// Shell commands, run in order with the task's shell (`sh -e -c`); the first failure stops the task.
  case shell(PackedList<Command>)
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

/// A task with `sources` split at its calls (`deploy#1`, …, `deploy`) is decided as one: its
/// first part checks a key that covers every part and what the calls reach, and is up to date
/// or restored for all of them; its last part, once every part has run, records the whole.
package struct WholeTask: Sendable, Hashable {
  /// The task's name, which is its last part's.
  package var name: String
  /// The task's `outputs`, which its last part declares.
  package var outputs: [String]
  /// On the first part: what the key covers besides its own commands (every command and call
  /// of the `run` list, and the definition of each task the calls reach), as text.
  package var key: [String] = []
  /// On the first part: the source patterns the key expands, one group per task (its own
  /// first, then each reached task's, seen from its directory), each group's `!` exclusions
  /// applying to that group alone.
  package var sourceGroups: [[String]] = []

  package init(name: String, outputs: [String]) {
    self.name = name
    self.outputs = outputs
  }

  /// The first part's name, under which the whole task's record is kept too.
  package var firstPart: String { name + "#1" }
}

package struct Command: Sendable, Hashable {
  package var text: String
  package var location: SourceLocation
  /// The call and `ignore_error`, which few commands have, out of line: 32 bytes a command.
  private var options: OutOfLine<Options>?

  private struct Options: Hashable, Sendable {
    var call: Dependency? = nil
    var ignoresError = false
  }

  package init(text: String, location: SourceLocation, call: Dependency? = nil) {
    self.text = text
    self.location = location
    options = .keeping(Options(call: call), unless: Options())
  }

  /// `- task: NAME` in a `run` list: run that task here (the loader splits the task at it).
  package var call: Dependency? {
    get { options?.value.call }
    set { OutOfLine.update(&options, empty: Options()) { $0.call = newValue } }
  }

  /// `- run: CMD` with `ignore_error: true`: the list goes on when it fails.
  package var ignoresError: Bool {
    get { options?.value.ignoresError ?? false }
    set { OutOfLine.update(&options, empty: Options()) { $0.ignoresError = newValue } }
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

/// An entry of `preconditions`: a command run before the task (with its shell, directory and
/// environment); when it fails, the task fails with `message` (or the command) at `location`.
package struct Precondition: Sendable, Hashable {
  package var command: String
  package var message: String?
  package var location: SourceLocation

  package init(command: String, message: String?, location: SourceLocation) {
    self.command = command
    self.message = message
    self.location = location
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
  /// A `file:` or `tcp:` as written when it reads values (`${PORT}`, `${{ params.port }}`):
  /// filled in, as `env` values are, when the file is expanded.
  package var written: String?

  package init(condition: Condition, timeout: Duration?, location: SourceLocation) {
    self.condition = condition
    self.timeout = timeout
    self.location = location
  }

  /// True when `text` reads a variable, a param or a host value.
  package static func readsValues(_ text: String) -> Bool { text.contains("${") }

  /// `HOST:PORT`, the port 1…65535.
  package static func tcp(_ text: String) -> Condition? {
    guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
      (1...65535).contains(port), colon > text.startIndex
    else { return nil }
    return .tcp(host: String(text[..<colon]), port: port)
  }

  package var description: String {
    switch condition {
    case .file(let path): return "file '\(path)'"
    case .tcp(let host, let port): return "tcp \(host):\(port)"
    case .command(let command): return "command '\(command)'"
    }
  }
}
