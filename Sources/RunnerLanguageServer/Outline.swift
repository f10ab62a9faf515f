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
  /// The root file's `includes`, with where each is declared.
  var includes: [IncludeDeclaration] = []
  /// The directory the root file's relative paths start from.
  var directory = ""

  init() {}

  init(_ file: TaskFile) {
    directory = file.directory
    includes = file.includes
    tasks = file.tasks.map { task in
      Entry(
        name: task.name, location: task.location, description: task.description,
        dependencies: task.dependencies.map(\.name), params: file.params(of: task))
    }
  }

  /// The task `name` names, as written in a file: `:name` is the root's.
  func task(_ name: String) -> Entry? {
    let bare = name.hasPrefix(":") ? String(name.dropFirst()) : name
    return tasks.first { $0.name == bare }
  }
}
