/// The edges of every node, in one flat list: node `i`'s are `targets[offsets[i]..<offsets[i + 1]]`.
///
/// A million nodes with two edges each cost 12 MB here; as an array of arrays, 96 MB (a
/// heap object for every node).
package struct Adjacency: RandomAccessCollection, Sendable {
  let offsets: [Int32]
  let targets: [Int32]

  init(offsets: [Int32], targets: [Int32]) {
    self.offsets = offsets
    self.targets = targets
  }

  /// The same edges, each turned around: node `i`'s are the nodes whose edges lead to `i`,
  /// in node order.
  package func reversed() -> Adjacency {
    var counts = [Int32](repeating: 0, count: offsets.count)
    for target in targets { counts[Int(target) + 1] += 1 }
    for node in 1..<counts.count { counts[node] += counts[node - 1] }
    var next = counts
    var reversed = [Int32](repeating: 0, count: targets.count)
    for node in indices {
      for target in self[node] {
        reversed[Int(next[target])] = Int32(node)
        next[target] += 1
      }
    }
    return Adjacency(offsets: counts, targets: reversed)
  }

  package var startIndex: Int { 0 }
  package var endIndex: Int { offsets.count - 1 }
  package var edgeCount: Int { targets.count }

  package subscript(node: Int) -> Edges {
    Edges(targets: targets, start: Int(offsets[node]), end: Int(offsets[node + 1]))
  }

  /// One node's edges: the indices of the nodes they lead to.
  package struct Edges: RandomAccessCollection, Sendable {
    let targets: [Int32]
    let start: Int
    package let endIndex: Int

    init(targets: [Int32], start: Int, end: Int) {
      self.targets = targets
      self.start = start
      self.endIndex = end - start
    }

    package var startIndex: Int { 0 }
    package subscript(position: Int) -> Int { Int(targets[start + position]) }
  }

  /// Appends nodes' edges in node order.
  struct Builder {
    var offsets: [Int32] = [0]
    var targets: [Int32] = []

    init(nodes: Int) { offsets.reserveCapacity(nodes + 1) }

    mutating func append(_ target: Int) { targets.append(Int32(target)) }
    mutating func endNode() { offsets.append(Int32(targets.count)) }

    var adjacency: Adjacency { Adjacency(offsets: offsets, targets: targets) }
  }
}
