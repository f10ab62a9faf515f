import RunnerModel

/// `--graph tree`: each target with its dependencies below it. A task's dependencies are
/// expanded once; later mentions say "(see above)".
package struct TreeRenderer: Sendable {
  package init() {}

  package func render(_ selection: GraphSelection) -> String {
    let graph = selection.graph
    var out = ""
    var expanded = Set<Int>()
    // Depth-first with an explicit stack, so a 100 000-task chain cannot overflow.
    var stack: [(node: Int, prefix: String, connector: String)] = selection.targets.reversed().map { ($0, "", "") }
    while let (node, prefix, connector) = stack.popLast() {
      let children = graph.dependencies[node]
      let repeated = expanded.contains(node) && !children.isEmpty
      out += prefix + connector + graph[node].name + (repeated ? " (see above)" : "") + "\n"
      guard !repeated else { continue }
      expanded.insert(node)
      let childPrefix = prefix + (connector == "├── " ? "│   " : connector.isEmpty ? "" : "    ")
      for (position, child) in children.enumerated().reversed() {
        stack.append((child, childPrefix, position == children.count - 1 ? "└── " : "├── "))
      }
    }
    return out
  }
}
