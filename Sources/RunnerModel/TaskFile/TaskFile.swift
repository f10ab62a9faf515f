/// A whole task file, checked: settings and tasks in file order.
public struct TaskFile: Sendable {
  /// The path as the user named it.
  package var path: String
  /// The directory task paths are relative to.
  package var directory: String
  /// nil: as many as the machine has CPUs.
  package var concurrency: Int?
  package var failFast = true
  /// What runs when no target is named; empty: the task named `default`, if there is one.
  package var defaultTargets: [Dependency] = []
  /// `shell`: what every shell task's commands run with, unless the task sets its own.
  package var shell: [String]?
  package var environment: [EnvironmentEntry] = []
  /// `key_env`: inherited variables that count in every task's key (besides `PATH`).
  package var keyEnvironment: [String] = []
  /// `secrets`: variables whose values every task gets but no key, upload or log shows.
  package var secretNames: [String] = []
  @usableFromInline package var tasks: [TaskDefinition] = [] {
    // A change may add, move or rename a task: the index no longer holds.
    didSet { names = nil }
  }
  /// `tasks` by name, as the decoder built it while nothing has changed them since: the graph
  /// takes it rather than hash a million names again.
  var names: NameIndex?
  package var params: [ParamDeclaration] = []
  package var includes: [IncludeDeclaration] = []
  /// The root file (0) and every included file, once includes are read.
  package var scopes: [IncludeScope] = []
  package var dotenv: [DotEnvReference] = []
  /// Files besides the task file that the loaded graph rests on (`.env` files, includes).
  package var otherFiles: [String] = []
  /// `remote:`: the remote cache, unless the command line names one.
  package var remote: RemoteSettings?
  /// The file's `.env` values that runner's environment overrides.
  package var shadowedEnvironment: [EnvironmentEntry] = []
  /// Every task's `aliases` (namespaced like its name) → the task's name.
  package var aliases: [String: String] = [:]

  /// The task `name` stands for: itself, or the task it is an alias of (`:b` as `b`).
  package func resolvingAlias(_ name: String) -> String {
    guard !aliases.isEmpty else { return name }
    let bare = name.hasPrefix(":") ? String(name.dropFirst()) : name
    return aliases[bare] ?? name
  }

  /// The params a task sees from its file (and the files that include it), then its own.
  package func params(of task: TaskDefinition) -> [ParamDeclaration] {
    var result: [ParamDeclaration] = []
    var level: Int? = task.scope < scopes.count ? task.scope : nil
    while let current = level {
      let own = current == 0 ? params : scopes[current].params
      result = own.filter { param in !result.contains { $0.name == param.name } } + result
      level = scopes[current].parent
    }
    if scopes.isEmpty { result = params }
    return result.filter { param in !task.params.contains { $0.name == param.name } } + task.params
  }

  package init(path: String, directory: String) {
    self.path = path
    self.directory = directory
  }
}
