import RunnerBasics
import RunnerModel

/// What a check of a document knew of its tasks (its own and its includes'), kept from the last
/// check that got that far, so that completion and hover work while the text is half written.
struct Outline: Sendable {
  struct Entry: Sendable {
    var name: String
    var location: SourceLocation
    var description: String?
    var dependencies: [String]
    var params: [ParamDeclaration]
    /// The namespace of the file it is written in (empty: the root file).
    var namespace = ""

    /// Its name as a file of `namespace` writes it: its own tasks bare, the root's as `:name`.
    func name(from namespace: String) -> String {
      guard !namespace.isEmpty else { return name }
      if self.namespace == namespace, name.hasPrefix(namespace + ":") {
        return String(name.dropFirst(namespace.count + 1))
      }
      return self.namespace.isEmpty ? ":" + name : name
    }
  }

  var tasks: [Entry] = []
  /// Where each task is named as written (`deps`, calls, `default`), by the task's full name.
  var references: [String: [SourceLocation]] = [:]
  /// The files the document includes (absolute, `FilePath.lexical`), and their namespaces.
  var namespaces: [String: String] = [:]
  var files: Set<String> { Set(namespaces.keys) }
  /// Each alias → the name of its task.
  var aliases: [String: String] = [:]
  /// The root file's `includes`, with where each is declared.
  var includes: [IncludeDeclaration] = []
  /// The directory the root file's relative paths start from.
  var directory = ""

  init() {}

  init(_ file: TaskFile) {
    directory = file.directory
    for scope in file.scopes.dropFirst() {
      namespaces[FilePath.lexical(FilePath.resolve(scope.path, in: file.directory))] = scope.namespace
    }
    includes = file.includes
    tasks = file.tasks.map { task in
      Entry(
        name: task.name, location: task.location, description: task.description,
        dependencies: task.dependencies.map(\.name), params: file.params(of: task),
        namespace: task.scope < file.scopes.count ? file.scopes[task.scope].namespace : "")
    }
    // Aliases name their task.
    var named: [String: String] = [:]
    for task in file.tasks {
      named[task.name] = task.name
      for alias in task.aliases {
        named[alias] = task.name
        aliases[alias] = task.name
      }
    }
    var edges = file.defaultTargets
    for task in file.tasks {
      edges += task.dependencies
      if case .shell(let commands) = task.action { edges += commands.compactMap(\.call) }
    }
    for edge in edges {
      let bare = edge.name.hasPrefix(":") ? String(edge.name.dropFirst()) : edge.name
      guard let name = named[bare] else { continue }
      references[name, default: []].append(edge.location)
    }
  }

  /// The task `name` names, as written in a file of `namespace`: `:name` is the root's, a
  /// bare name in an included file that file's own.
  func task(_ name: String, from namespace: String = "") -> Entry? {
    if name.hasPrefix(":") { return tasks.first { $0.name == name.dropFirst() } }
    if !namespace.isEmpty, let own = tasks.first(where: { $0.name == namespace + ":" + name }) { return own }
    return tasks.first { $0.name == name }
  }
}
