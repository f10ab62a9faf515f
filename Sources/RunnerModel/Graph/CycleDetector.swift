/// Finds every dependency cycle, one report per strongly connected component.
///
/// Tarjan's algorithm, iterative so a 100 000-task chain cannot overflow the stack.
package struct CycleDetector {
  /// A cycle: its path, the place of each edge, and an edge whose removal breaks it (if one does).
  package struct Cycle: Sendable, Equatable {
    /// Task indices `a, b, c` for `a -> b -> c -> a`.
    package var path: [Int]
    /// The edge to remove, as (from, to), when removing that single edge makes the component acyclic.
    package var breakingEdge: (Int, Int)?
    /// How many tasks the component holds (more than the path when cycles interlock).
    package var componentSize: Int

    package static func == (lhs: Cycle, rhs: Cycle) -> Bool {
      lhs.path == rhs.path && lhs.breakingEdge?.0 == rhs.breakingEdge?.0 && lhs.breakingEdge?.1 == rhs.breakingEdge?.1
        && lhs.componentSize == rhs.componentSize
    }
  }

  /// Components larger than this are not searched for a single breaking edge (it is quadratic).
  static let breakingEdgeSearchLimit = 400

  let graph: TaskGraph

  package init(graph: TaskGraph) { self.graph = graph }

  /// Every cycle, ordered by the file position of its first task.
  package func cycles() -> [Cycle] {
    stronglyConnectedComponents().compactMap { component in
      if component.count == 1 {
        let node = component[0]
        return graph.dependencies[node].contains(node)
          ? Cycle(path: [node], breakingEdge: (node, node), componentSize: 1) : nil
      }
      let members = Set(component)
      let start = component.min()!
      let path = shortestCycle(through: start, within: members)
      return Cycle(path: path, breakingEdge: breakingEdge(members: members, path: path), componentSize: component.count)
    }.sorted { $0.path[0] < $1.path[0] }
  }

  func stronglyConnectedComponents() -> [[Int]] {
    let count = graph.count
    // 32-bit: a graph's tasks are numbered so (`TaskDefinition.index`), and these are held
    // beside the whole graph of a large file.
    var index = [Int32](repeating: -1, count: count)
    var lowLink = [Int32](repeating: 0, count: count)
    var onStack = [Bool](repeating: false, count: count)
    var stack: [Int] = []
    var components: [[Int]] = []
    var nextIndex: Int32 = 0
    var work: [(node: Int, edge: Int)] = []
    for root in 0..<count where index[root] == -1 {
      work.append((root, 0))
      index[root] = nextIndex
      lowLink[root] = nextIndex
      nextIndex += 1
      stack.append(root)
      onStack[root] = true
      while let (node, edge) = work.last {
        let edges = graph.dependencies[node]
        if edge < edges.count {
          work[work.count - 1].edge += 1
          let next = edges[edge]
          if index[next] == -1 {
            index[next] = nextIndex
            lowLink[next] = nextIndex
            nextIndex += 1
            stack.append(next)
            onStack[next] = true
            work.append((next, 0))
          } else if onStack[next] {
            lowLink[node] = min(lowLink[node], index[next])
          }
          continue
        }
        work.removeLast()
        if let parent = work.last { lowLink[parent.node] = min(lowLink[parent.node], lowLink[node]) }
        if lowLink[node] == index[node], stack.last == node {
          // A component of one task (every task of an acyclic graph): no list made for it.
          stack.removeLast()
          onStack[node] = false
          if graph.dependencies[node].contains(node) { components.append([node]) }
        } else if lowLink[node] == index[node] {
          var component: [Int] = []
          while let member = stack.popLast() {
            onStack[member] = false
            component.append(member)
            if member == node { break }
          }
          if component.count > 1 || graph.dependencies[node].contains(node) { components.append(component) }
        }
      }
    }
    return components
  }

  /// The shortest path from `start` back to itself inside the component (breadth-first).
  func shortestCycle(through start: Int, within members: Set<Int>) -> [Int] {
    var parent: [Int: Int] = [:]
    var queue = [start]
    var head = 0
    while head < queue.count {
      let node = queue[head]
      head += 1
      for next in graph.dependencies[node] where members.contains(next) {
        if next == start {
          var path = [node]
          while let previous = parent[path[0]] { path.insert(previous, at: 0) }
          return path
        }
        if parent[next] == nil, next != start {
          parent[next] = node
          queue.append(next)
        }
      }
    }
    return [start]
  }

  /// An edge of `path` whose removal leaves the component without any cycle, preferring
  /// the edge that points back to the task written earliest in the file.
  func breakingEdge(members: Set<Int>, path: [Int]) -> (Int, Int)? {
    let edges = path.indices.map { (path[$0], path[($0 + 1) % path.count]) }
    let edgeCount = members.reduce(0) { total, node in
      total + graph.dependencies[node].filter(members.contains).count
    }
    let ordered = edges.sorted { ($0.0 - $0.1) > ($1.0 - $1.1) }
    // A component that is one simple cycle breaks at any of its edges.
    if edgeCount == members.count { return ordered.first }
    guard members.count <= Self.breakingEdgeSearchLimit else { return nil }
    return ordered.first { isAcyclic(members: members, without: $0) }
  }

  func isAcyclic(members: Set<Int>, without removed: (Int, Int)) -> Bool {
    var indegree: [Int: Int] = [:]
    for node in members { indegree[node] = 0 }
    for node in members {
      for next in graph.dependencies[node] where members.contains(next) && (node, next) != removed {
        indegree[next, default: 0] += 1
      }
    }
    var ready = Array(members.filter { indegree[$0] == 0 })
    var seen = 0
    while let node = ready.popLast() {
      seen += 1
      for next in graph.dependencies[node] where members.contains(next) && (node, next) != removed {
        indegree[next]! -= 1
        if indegree[next] == 0 { ready.append(next) }
      }
    }
    return seen == members.count
  }
}
