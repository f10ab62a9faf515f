import RunnerModel

/// `--graph tree`: each target with its dependencies below it. A task's dependencies are
/// expanded once; later mentions say "(see above)". Below `maximumIndent` levels the lines
/// stop moving right and say their depth (`⋯[level 130] └── t12`): the indentation of a deep
/// graph would otherwise make the output grow with the square of its depth.
package struct TreeRenderer: Sendable {
  static let maximumIndent = 40

  package init() {}

  package func render(_ selection: GraphSelection) -> String {
    TextPieces.collect { write(selection, to: $0) }
  }

  package func write(_ selection: GraphSelection, to emit: (String) -> Void) {
    let graph = selection.graph
    var out = ""
    var expanded = Set<Int>()
    // Depth-first with an explicit stack, so a 100 000-task chain cannot overflow.
    var stack: [(node: Int, prefix: String, connector: String, level: Int)] =
      selection.targets.reversed().map { ($0, "", "", 0) }
    while let (node, prefix, connector, level) = stack.popLast() {
      let children = graph.dependencies[node]
      let repeated = expanded.contains(node) && !children.isEmpty
      let deep = level > Self.maximumIndent ? "⋯[level \(level)] " : ""
      out += prefix + deep + connector + graph[node].name + (repeated ? " (see above)" : "") + "\n"
      TextPieces.flush(&out, to: emit)
      guard !repeated else { continue }
      expanded.insert(node)
      let childPrefix =
        level >= Self.maximumIndent
        ? prefix : prefix + (connector == "├── " ? "│   " : connector.isEmpty ? "" : "    ")
      for (position, child) in children.enumerated().reversed() {
        stack.append((child, childPrefix, position == children.count - 1 ? "└── " : "├── ", level + 1))
      }
    }
    emit(out)
  }
}
