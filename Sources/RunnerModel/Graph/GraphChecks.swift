/// Checks that span tasks: what an `env` expression reads, where an image task's input
/// comes from, and that no two tasks save to the same path.
struct GraphChecks {
  let graph: TaskGraph
  var diagnostics: [Diagnostic] = []

  init(graph: TaskGraph) { self.graph = graph }

  mutating func run() {
    // `default:` is checked when it is used (GraphSelection): a run naming its targets does not read it.
    var savedBy: [String: (task: String, location: SourceLocation)] = [:]
    let tasks = graph.tasks
    for node in tasks.indices {
      // Only a task with an environment, a condition (a rare field) or image steps has anything
      // to check: the others are passed over on a few fields, not copied whole (a copy retains
      // and releases every reference a task holds).
      let isImage: Bool
      if case .image = tasks[node].action { isImage = true } else { isImage = false }
      guard isImage || !tasks[node].environment.isEmpty || tasks[node].setsRareFields else { continue }
      check(tasks[node], savedBy: &savedBy)
    }
  }

  private mutating func check(
    _ task: TaskDefinition, savedBy: inout [String: (task: String, location: SourceLocation)]
  ) {
    checkExpressions(task)
    guard case .image(let steps) = task.action else { return }
    checkImageInput(task, steps)
    for step in steps {
      guard case .save(let path, _) = step.kind else { continue }
      let key = Self.normalize(path, in: task.directory)
      if let first = savedBy[key] {
        diagnostics.append(
          .error(
            .invalidValue(
              what: "task '\(task.name)'", reason: "saves to '\(path)', which task '\(first.task)' saves to too"),
            at: step.location, notes: [.note("'\(first.task)' saves it here", at: first.location)]))
      } else {
        savedBy[key] = (task.name, step.location)
      }
    }
  }

  mutating func checkExpressions(_ task: TaskDefinition) {
    guard !task.environment.isEmpty || task.condition != nil else { return }
    let direct = Set(task.dependencies.map(\.name))
    for entry in task.environment {
      for reference in entry.value.references where !direct.contains(reference.task) {
        diagnostics.append(
          .error(.expressionNotADependency(task: task.name, reference: reference.task), at: entry.location))
      }
    }
    if case .expression(let expression) = task.condition {
      for case .output(let name, _) in expression.references where !direct.contains(name) {
        diagnostics.append(.error(.expressionNotADependency(task: task.name, reference: name), at: task.location))
      }
    }
  }

  /// The tasks among `task`'s direct dependencies that provide an image.
  func imageProviders(of task: TaskDefinition) -> [String] {
    task.dependencies.compactMap { dependency in
      guard let index = graph.index(of: dependency.name), case .image = graph[index].action else { return nil }
      return dependency.name
    }
  }

  mutating func checkImageInput(_ task: TaskDefinition, _ steps: [ImageStep]) {
    for step in steps.dropFirst() {
      if case .load = step.kind {
        diagnostics.append(
          .error(
            .invalidValue(
              what: "task '\(task.name)'", reason: "has 'load' after its first step; only the first step may load"),
            at: step.location))
      }
    }
    guard let first = steps.first else { return }
    let providers = imageProviders(of: task)
    switch first.kind {
    case .load(.dependency(let name), _):
      if !providers.contains(name) {
        let reason =
          task.dependencies.contains { $0.name == name }
          ? "loads from '\(name)', which is not an image task"
          : "loads from '\(name)', which is not one of its dependencies (add it to 'deps')"
        diagnostics.append(.error(.invalidValue(what: "task '\(task.name)'", reason: reason), at: first.location))
      }
    case .load:
      return
    default:
      if providers.count != 1 {
        let reason =
          providers.isEmpty
          ? "takes its input image from a dependency, but none of its dependencies is an image task (start with 'load')"
          : "has several image dependencies (\(providers.joined(separator: ", "))); pick one with 'load: { from: NAME }'"
        diagnostics.append(.error(.invalidValue(what: "task '\(task.name)'", reason: reason), at: first.location))
      }
    }
  }

  /// The path `path` names relative to the task file's directory, with `.` and `..` folded.
  static func normalize(_ path: String, in directory: String?) -> String {
    let joined = path.hasPrefix("/") ? path : (directory.map { $0 + "/" } ?? "") + path
    var parts: [Substring] = []
    for part in joined.split(separator: "/") {
      if part == "." || part.isEmpty { continue }
      if part == "..", let last = parts.last, last != ".." {
        parts.removeLast()
      } else {
        parts.append(part)
      }
    }
    return (joined.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
  }
}
