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
    /// The outputs it is known to write: an image task's, and the keys its commands append to
    /// `$RUNNER_OUTPUT` as they are written (`echo "tag=…" >> "$RUNNER_OUTPUT"`).
    var outputKeys: [String] = []

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
  /// The root file's params.
  var params: [ParamDeclaration] = []
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
    params = file.params
    tasks = file.tasks.map { task in
      Entry(
        name: task.name, location: task.location, description: task.description,
        dependencies: task.dependencies.map(\.name), params: file.params(of: task),
        namespace: task.scope < file.scopes.count ? file.scopes[task.scope].namespace : "",
        outputKeys: Self.outputKeys(of: task.action))
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

  /// The outputs a task's action is known to write: an image task's `width`, `height` and
  /// (with a `save`) `path`; the keys a shell task's commands write as `KEY=` or `KEY<<` in an
  /// `echo` or `printf` of a command that names `RUNNER_OUTPUT`.
  static func outputKeys(of action: TaskAction) -> [String] {
    switch action {
    case .group: return []
    case .image(let steps):
      return ["width", "height"] + (steps.contains { $0.name == "save" } ? ["path"] : [])
    case .shell(let commands):
      var keys: [String] = []
      for command in commands where command.text.contains("RUNNER_OUTPUT") {
        for key in writtenKeys(command.text) where !keys.contains(key) { keys.append(key) }
      }
      return keys
    }
  }

  /// `tag` and `notes` in `echo "tag=v1" …; printf 'notes<<EOF\n'`.
  static func writtenKeys(_ script: String) -> [String] {
    var keys: [String] = []
    let words = script.split { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == ";" || $0 == "{" || $0 == "(" }
    for (index, word) in words.enumerated() where word == "echo" || word == "printf" {
      guard var argument = words[(index + 1)...].first(where: { !$0.hasPrefix("-") }) else { continue }
      argument = argument.drop { $0 == "\"" || $0 == "'" }
      let name = argument.prefix { $0.isLetter || $0.isNumber || "_-.".contains($0) }
      let rest = argument.dropFirst(name.count)
      guard !name.isEmpty, rest.hasPrefix("=") || rest.hasPrefix("<<") else { continue }
      keys.append(String(name))
    }
    return keys
  }
}
