import RunnerModel

/// `--graph mermaid`: a flowchart for Markdown (GitHub renders it). Node ids are `t0`, `t1`, …
/// because task names may hold characters Mermaid reserves.
package struct MermaidRenderer: Sendable {
  package init() {}

  package func render(_ selection: GraphSelection) -> String {
    TextPieces.collect { write(selection, to: $0) }
  }

  package func write(_ selection: GraphSelection, to emit: (String) -> Void) {
    let graph = selection.graph
    var out = "flowchart LR\n"
    for node in selection.members {
      let task = graph[node]
      let label = "\"" + task.name.replacingQuotes() + "\""
      switch task.action {
      case .group: out += "  t\(node)(\(label))\n"
      case .shell: out += "  t\(node)[\(label)]\n"
      case .image: out += "  t\(node)[/\(label)/]\n"
      }
      TextPieces.flush(&out, to: emit)
    }
    for edge in selection.edges {
      out += edge.carriesImage ? "  t\(edge.from) ==>|image| t\(edge.to)\n" : "  t\(edge.from) --> t\(edge.to)\n"
      TextPieces.flush(&out, to: emit)
    }
    emit(out)
  }
}

extension String {
  /// Mermaid labels cannot hold a double quote; task names never do, but stay safe.
  func replacingQuotes() -> String {
    String(map { $0 == "\"" ? "'" : $0 })
  }
}
