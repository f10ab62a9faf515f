/// The validated task graph: tasks as nodes (by index in file order), dependency edges both ways.
///
/// Built by `TaskGraph.init(file:)`, which checks that every dependency exists; cycles are
/// found separately by `CycleDetector` so that every cycle can be reported at once.
public struct TaskGraph: Sendable {
  @usableFromInline package let file: TaskFile
  /// `dependencies[i]`: indices of the tasks task `i` depends on, in the order written.
  package let dependencies: Adjacency
  /// `dependents[i]`: indices of the tasks that depend on task `i`, in file order.
  package let dependents: Adjacency
  let names: NameIndex
  /// What task calls add: orderings, and which edges only a reached call needs.
  package let calls: TaskCalls

  @inlinable package var tasks: [TaskDefinition] { file.tasks }
  @inlinable package var count: Int { file.tasks.count }

  /// - Throws: `DiagnosticList` naming each dependency on an undefined task.
  package init(file: TaskFile) throws(DiagnosticList) {
    self.file = file
    let names = file.names ?? NameIndex(file.tasks)
    var diagnostics: [Diagnostic] = []
    var dependencies = Adjacency.Builder(nodes: file.tasks.count)
    // By index, not `for task in`: a copy of each task retained and released every reference it holds.
    for node in file.tasks.indices {
      defer { dependencies.endNode() }
      for dependency in file.tasks[node].dependencies {
        guard let target = names.index(of: dependency.name, in: file.tasks) else {
          let task = file.tasks[node]
          if dependency.name.contains("*") {
            diagnostics.append(
              .error(
                .invalidValue(
                  what: "'\(dependency.name)' in the deps of task '\(task.name)'",
                  reason: "is a pattern: patterns name targets on the command line; list the tasks here"),
                at: dependency.location))
            continue
          }
          if dependency.name.hasPrefix(":") {
            diagnostics.append(
              .error(
                .undefinedDependency(task: task.name, dependency: dependency.name, suggestion: nil),
                at: dependency.location,
                notes: [
                  .note(
                    "':name' names a task of the root file; a file run on its own is its own root, so "
                      + "'\(dependency.name.dropFirst())' must be one of its tasks (run the root file instead?)")
                ]))
            continue
          }
          let suggestion = Suggestion.closest(to: dependency.name, in: file.tasks.lazy.map(\.name))
          diagnostics.append(
            .error(
              .undefinedDependency(task: task.name, dependency: dependency.name, suggestion: suggestion),
              at: dependency.location))
          continue
        }
        dependencies.append(target)
      }
    }
    guard diagnostics.isEmpty else { throw DiagnosticList(diagnostics) }
    self.dependencies = dependencies.adjacency
    self.dependents = self.dependencies.reversed()
    self.names = names
    calls = TaskCalls(file.tasks, names: names, dependencies: self.dependencies)
  }

  package func index(of name: String) -> Int? { names.index(of: name, in: file.tasks) }

  /// Inlinable, so that `graph[i].name` reads one field of a large struct where it lies: a whole
  /// task copied retains and releases every reference it holds, on every access of every
  /// renderer. (A `_read` accessor is not inlined across modules, and its caller copies what it
  /// yields.)
  @inlinable package subscript(index: Int) -> TaskDefinition {
    @inline(__always) get { file.tasks[index] }
  }

  /// Where task `task` names each of its `deps`, by name (the first mention). For every edge
  /// of a task at once: `edgeLocation` per edge scans the list, quadratic on a wide task.
  package func dependencyLocations(of task: Int) -> [String: SourceLocation] {
    var locations: [String: SourceLocation] = [:]
    locations.reserveCapacity(file.tasks[task].dependencies.count)
    for dependency in file.tasks[task].dependencies where locations[dependency.name] == nil {
      locations[dependency.name] = dependency.location
    }
    return locations
  }

  /// Where task `from` names task `to` in its `deps`.
  package func edgeLocation(from: Int, to: Int) -> SourceLocation {
    let name = file.tasks[to].name
    return file.tasks[from].dependencies.first { $0.name == name }?.location ?? file.tasks[from].location
  }
}
