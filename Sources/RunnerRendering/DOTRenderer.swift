import RunnerModel

/// `--graph dot`: Graphviz. Edges point the way work flows (dependency → dependent);
/// edges that carry an image are bold and labelled.
package struct DOTRenderer: Sendable {
  package init() {}

  package func render(_ selection: GraphSelection) -> String {
    TextPieces.collect { write(selection, to: $0) }
  }

  package func write(_ selection: GraphSelection, to emit: (String) -> Void) {
    let graph = selection.graph
    var out = "digraph tasks {\n  rankdir=LR;\n  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n"
    let targets = Set(selection.targets)
    for node in selection.members {
      let task = graph[node]
      var attributes = ["label=\(quote(task.name + "\n" + task.pictureKind))"]
      if targets.contains(node) { attributes.append("penwidth=2") }
      if case .image = task.action { attributes.append("style=\"rounded,filled\", fillcolor=\"#e8f0fe\"") }
      out += "  \(quote(task.name)) [\(attributes.joined(separator: ", "))];\n"
      TextPieces.flush(&out, to: emit)
    }
    for edge in selection.edges {
      let style = edge.carriesImage ? " [style=bold, color=\"#1a73e8\", label=\"image\"]" : ""
      out += "  \(quote(graph[edge.from].name)) -> \(quote(graph[edge.to].name))\(style);\n"
      TextPieces.flush(&out, to: emit)
    }
    emit(out + "}\n")
  }

  func quote(_ text: String) -> String {
    var escaped = "\""
    for character in text {
      switch character {
      case "\"": escaped += "\\\""
      case "\\": escaped += "\\\\"
      case "\n": escaped += "\\n"
      default: escaped.append(character)
      }
    }
    return escaped + "\""
  }
}

extension TaskDefinition {
  /// The kind a picture labels a task with, and what decides at its turn how it runs:
  /// `shell · service`, `shell · cleanup`, `group · if`.
  var pictureKind: String {
    var words = [action.kindName]
    if isService { words.append("service") }
    if always { words.append("cleanup") }
    if self.condition != nil { words.append("if") }
    return words.joined(separator: " · ")
  }
}
