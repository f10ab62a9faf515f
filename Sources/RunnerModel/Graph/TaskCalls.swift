/// What task calls (`- task: NAME` in a `run` list) add to the graph, by task index. Empty for
/// most files, so kept apart from the edges.
///
/// A task with calls is split into parts (`deploy#1`, …, `deploy`). A called task starts after
/// the part before the call when both are in the run (`after`), and only once that part has
/// ended: a part skipped by the task's `if:` calls nothing (`calledWhenEnded`,
/// `callDependencies`, `laterParts`).
package struct TaskCalls: Sendable {
  /// The tasks a task starts after when they are in the same run, and the same turned around.
  let after: [Int: [Int]]
  let before: [Int: [Int]]
  /// Per part: the tasks it calls once it has ended.
  let calledWhenEnded: [Int: [Int]]
  /// Per part after a call: which of its dependencies it has through that call.
  let callDependencies: [Int: [Int]]
  /// Per first part: the task's other parts, which share its `if:`.
  let laterParts: [Int: [Int]]

  package var isEmpty: Bool { calledWhenEnded.isEmpty }

  init(_ tasks: [TaskDefinition], names: NameIndex, dependencies: Adjacency) {
    let lookup = { (list: [String]) -> [Int] in list.compactMap { names.index(of: $0, in: tasks) } }
    var called: [Int: [Int]] = [:]
    var callDependencies: [Int: [Int]] = [:]
    var laterParts: [Int: [Int]] = [:]
    // These fields are among the rarely set ones: a task that sets none is passed over on one
    // field, not copied whole (a copy retains and releases every reference it holds).
    for task in tasks.indices where tasks[task].setsRareFields {
      let definition = tasks[task]
      if !definition.calledWhenEnded.isEmpty { called[task] = lookup(definition.calledWhenEnded) }
      if !definition.callDependencies.isEmpty { callDependencies[task] = lookup(definition.callDependencies) }
      if !definition.laterParts.isEmpty { laterParts[task] = lookup(definition.laterParts) }
    }
    calledWhenEnded = called
    self.callDependencies = callDependencies
    self.laterParts = laterParts
    (after, before) = Self.orderings(tasks, names: names, dependencies: dependencies)
  }

  /// Each `after` name as an edge, unless the part named already waits for the task (it depends
  /// on it, or on something after it): then the call reuses what ran, and the edge would be a cycle.
  static func orderings(_ tasks: [TaskDefinition], names: NameIndex, dependencies: Adjacency)
    -> (after: [Int: [Int]], before: [Int: [Int]])
  {
    var after: [Int: [Int]] = [:]
    var before: [Int: [Int]] = [:]
    // `after` is a rarely set field (see `init`).
    let ordered = tasks.indices.filter { tasks[$0].setsRareFields && !tasks[$0].after.isEmpty }
    for called in ordered {
      let definition = tasks[called]
      for name in definition.after {
        guard let part = names.index(of: name, in: tasks) else { continue }
        // Where the called task's work begins: its first part, each matrix combination's.
        for task in entries(of: called, tasks, names: names, dependencies: dependencies)
        where !after[task, default: []].contains(part) {
          // Does `part` wait for `task`, through dependencies and the orderings taken so far?
          var seen = Set<Int>()
          var work = [part]
          var waits = false
          while let next = work.popLast(), !waits {
            guard seen.insert(next).inserted else { continue }
            if next == task {
              waits = true
            } else {
              work.append(contentsOf: dependencies[next])
              work.append(contentsOf: after[next] ?? [])
            }
          }
          guard !waits else { continue }
          after[task, default: []].append(part)
          before[part, default: []].append(task)
        }
      }
    }
    return (after, before)
  }

  /// The nodes where `task`'s own work begins: itself, its first part when it is split at its
  /// calls, each combination's when it is a matrix's group.
  static func entries(of task: Int, _ tasks: [TaskDefinition], names: NameIndex, dependencies: Adjacency) -> [Int] {
    let definition = tasks[task]
    if !definition.writtenRun.isEmpty, let first = names.index(of: definition.name + "#1", in: tasks) { return [first] }
    if definition.matrix != nil, case .group = definition.action,
      dependencies[task].allSatisfy({ tasks[$0].name.hasPrefix(definition.name + "[") })
    {
      return dependencies[task].flatMap { entries(of: $0, tasks, names: names, dependencies: dependencies) }
    }
    return [task]
  }
}

extension TaskGraph {
  /// The tasks `task` starts after when they are in the same run (see `TaskDefinition.after`).
  package func runsAfter(_ task: Int) -> [Int] { calls.after[task] ?? [] }
  /// The tasks that start after `task` when they are in the same run.
  package func runsBefore(_ task: Int) -> [Int] { calls.before[task] ?? [] }
  package var hasOrderings: Bool { !calls.after.isEmpty }
  /// The tasks part `task` calls once it has ended.
  package func calledWhenEnded(_ task: Int) -> [Int] { calls.calledWhenEnded[task] ?? [] }
  /// The dependencies part `task` has through a call.
  package func callDependencies(of task: Int) -> [Int] { calls.callDependencies[task] ?? [] }
  /// The parts after first part `task`, skipped with it by the task's `if:`.
  package func laterParts(of task: Int) -> [Int] { calls.laterParts[task] ?? [] }
}
