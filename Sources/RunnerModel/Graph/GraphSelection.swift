/// The part of the graph a run needs: the targets and everything they depend on,
/// with the shape the scheduler and the renderers use (stages, heights, critical path).
///
/// Requires an acyclic graph (check with `CycleDetector` first).
package struct GraphSelection: Sendable {
  package let graph: TaskGraph
  /// The tasks asked for.
  package let targets: [Int]
  /// Selected task indices in file order.
  package let members: [Int]
  /// `isMember[i]`: task `i` is selected.
  package let isMember: [Bool]
  /// Stage of each selected task: 0 without dependencies, else one more than its deepest
  /// dependency. (32-bit, as the tasks' indices are: this and `height` are held beside the
  /// whole graph.)
  package let stage: [Int32]
  /// Length in tasks of the longest path from each task down to a target (itself included):
  /// the scheduler's critical-path priority.
  package let height: [Int32]

  /// - Parameter targets: task indices; empty selects every task.
  package init(graph: TaskGraph, targets: [Int]) {
    self.graph = graph
    self.targets = targets.isEmpty ? Array(0..<graph.count) : targets
    var isMember = [Bool](repeating: false, count: graph.count)
    var work = self.targets
    while let node = work.popLast() {
      guard !isMember[node] else { continue }
      isMember[node] = true
      work.append(contentsOf: graph.dependencies[node])
    }
    self.isMember = isMember
    // Counted first: a list grown by doubling holds up to twice what it needs while it grows.
    var members: [Int] = []
    members.reserveCapacity(isMember.count(where: { $0 }))
    for node in 0..<graph.count where isMember[node] { members.append(node) }
    self.members = members
    let order = Self.topologicalOrder(graph, isMember: isMember, members: members)
    var stage = [Int32](repeating: 0, count: graph.count)
    for node in order {
      stage[node] = graph.dependencies[node].reduce(0) { max($0, stage[$1] + 1) }
      for earlier in graph.runsAfter(node) where isMember[earlier] {
        stage[node] = max(stage[node], stage[earlier] + 1)
      }
    }
    var height = [Int32](repeating: 0, count: graph.count)
    for node in order.reversed() {
      height[node] = 1 + graph.dependents[node].reduce(0) { isMember[$1] ? max($0, height[$1]) : $0 }
      for later in graph.runsBefore(node) where isMember[later] { height[node] = max(height[node], 1 + height[later]) }
    }
    self.stage = stage
    self.height = height
  }

  /// Dependencies before dependents; ties in file order.
  static func topologicalOrder(_ graph: TaskGraph, isMember: [Bool], members: [Int]) -> [Int] {
    var remaining = [Int32](repeating: 0, count: graph.count)
    for node in members {
      remaining[node] = Int32(graph.dependencies[node].count + graph.runsAfter(node).count(where: { isMember[$0] }))
    }
    // The order is the queue of the tasks found ready: taken from `head`, added at the end.
    var order: [Int] = []
    order.reserveCapacity(members.count)
    for node in members where remaining[node] == 0 { order.append(node) }
    var head = 0
    while head < order.count {
      let node = order[head]
      head += 1
      for next in graph.dependents[node] where isMember[next] {
        remaining[next] -= 1
        if remaining[next] == 0 { order.append(next) }
      }
      for next in graph.runsBefore(node) where isMember[next] {
        remaining[next] -= 1
        if remaining[next] == 0 { order.append(next) }
      }
    }
    return order
  }

  /// Selected tasks grouped by stage, each stage in file order: slices of one list (a list a
  /// stage grew one task at a time, and held 50 % more than it needed).
  package var stages: [ArraySlice<Int>] {
    var sizes: [Int] = []
    for node in members {
      let number = Int(stage[node])
      while sizes.count <= number { sizes.append(0) }
      sizes[number] += 1
    }
    var starts: [Int] = []
    starts.reserveCapacity(sizes.count)
    var start = 0
    for size in sizes {
      starts.append(start)
      start += size
    }
    var next = starts
    var ordered = [Int](repeating: 0, count: members.count)
    for node in members {
      ordered[next[Int(stage[node])]] = node
      next[Int(stage[node])] += 1
    }
    return starts.indices.map { ordered[starts[$0]..<starts[$0] + sizes[$0]] }
  }

  /// The longest chain of selected tasks by task count, from a task with no dependencies to a target.
  package var criticalPath: [Int] {
    guard
      var node = members.filter({ stage[$0] == 0 }).max(by: {
        height[$0] < height[$1] || (height[$0] == height[$1] && $0 > $1)
      })
    else { return [] }
    var path = [node]
    while let next = graph.dependents[node].filter({ isMember[$0] && height[$0] == height[node] - 1 }).first {
      path.append(next)
      node = next
    }
    return path
  }
}
