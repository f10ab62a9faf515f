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
  }

  var tasks: [Entry] = []
  /// Where each task is named as written (`deps`, calls, `default`), by the task's full name.
  var references: [String: [SourceLocation]] = [:]
  /// The files the document includes (absolute, `FilePath.lexical`).
  var files: Set<String> = []
  /// Each alias → the name of its task.
  var aliases: [String: String] = [:]
  /// The root file's `includes`, with where each is declared.
  var includes: [IncludeDeclaration] = []
  /// The directory the root file's relative paths start from.
  var directory = ""

  init() {}

  init(_ file: TaskFile) {
    directory = file.directory
    files = Set(file.scopes.dropFirst().map { FilePath.lexical(FilePath.resolve($0.path, in: file.directory)) })
    includes = file.includes
    tasks = file.tasks.map { task in
      Entry(
        name: task.name, location: task.location, description: task.description,
        dependencies: task.dependencies.map(\.name), params: file.params(of: task))
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

  /// The task `name` names, as written in a file: `:name` is the root's.
  func task(_ name: String) -> Entry? {
    let bare = name.hasPrefix(":") ? String(name.dropFirst()) : name
    return tasks.first { $0.name == bare }
  }
}
