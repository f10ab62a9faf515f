import RunnerBasics
import RunnerModel

/// `--graph html`: one self-contained page — the graph as inline SVG, its stages, and every
/// task's details — that opens with no network (no scripts, fonts or images from elsewhere).
package struct HTMLGraphRenderer: Sendable {
  package init() {}

  /// - Parameter svg: the graph drawn by Graphviz, if it is installed; otherwise runner
  ///   lays it out itself (`LayeredGraphRenderer`).
  package func render(_ selection: GraphSelection, svg: String? = nil) -> String {
    TextPieces.collect { write(selection, svg: svg, to: $0) }
  }

  package func write(_ selection: GraphSelection, svg: String? = nil, to emit: (String) -> Void) {
    let graph = selection.graph
    let path = selection.criticalPath.map { graph[$0].name }
    var html = """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <title>\(MarkupText.xml(graph.file.path)) — runner graph</title>
      <style>
      body { font-family: Helvetica, Arial, sans-serif; color: #1f2328; margin: 24px; max-width: 1200px; }
      h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
      .graph { overflow-x: auto; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px; }
      .graph svg { max-width: 100%; height: auto; }
      table { border-collapse: collapse; width: 100%; font-size: 13px; }
      th, td { text-align: left; vertical-align: top; border-bottom: 1px solid #d0d7de; padding: 6px 8px; }
      code, pre { font-family: Menlo, Consolas, monospace; font-size: 12px; }
      pre { margin: 0; white-space: pre-wrap; }
      .stage { display: inline-block; margin: 0 8px 8px 0; padding: 6px 10px; background: #f6f8fa; border-radius: 6px; }
      .muted { color: #57606a; }
      tr:target { background: #fff8c5; }
      </style>
      </head>
      <body>
      <h1>\(MarkupText.xml(graph.file.path))</h1>
      <p class="muted">\(selection.members.count) task(s) in \(selection.stages.count) stage(s) · targets: \
      \(MarkupText.xml(selection.targets.map { graph[$0].name }.joined(separator: ", "))) · \
      critical path: \(MarkupText.xml(path.joined(separator: " → ")))</p>
      <div class="graph">

      """
    emit(html)
    if let svg { emit(Self.stripProlog(svg)) } else { LayeredGraphRenderer().write(selection, to: emit) }
    html = """
      </div>
      <h2>Stages</h2>
      <div>

      """
    for (number, stage) in selection.stages.enumerated() {
      let names = stage.map { "<a href=\"#task-\(anchor(graph[$0].name))\">\(MarkupText.xml(graph[$0].name))</a>" }
      html += "<div class=\"stage\"><b>stage \(number + 1)</b><br>\(names.joined(separator: "<br>"))</div>\n"
      TextPieces.flush(&html, to: emit)
    }
    html += """
      </div>
      <h2>Tasks</h2>
      <table>
      <tr><th>task</th><th>kind</th><th>depends on</th><th>needed by</th><th>does</th><th>defined at</th></tr>

      """
    for node in selection.members {
      let task = graph[node]
      let links = { (nodes: Adjacency.Edges) in
        nodes.filter { selection.isMember[$0] }.map {
          "<a href=\"#task-\(anchor(graph[$0].name))\">\(MarkupText.xml(graph[$0].name))</a>"
        }.joined(separator: ", ")
      }
      let description = task.description.map { "<div class=\"muted\">\(MarkupText.xml($0))</div>" } ?? ""
      html += "<tr id=\"task-\(anchor(task.name))\"><td><b>\(MarkupText.xml(task.name))</b>\(description)</td>"
      html += "<td>\(MarkupText.xml(task.pictureKind))</td><td>\(links(graph.dependencies[node]))</td>"
      html += "<td>\(links(graph.dependents[node]))</td><td>\(does(task))</td>"
      html += "<td><code>\(MarkupText.xml(task.location.description))</code></td></tr>\n"
      TextPieces.flush(&html, to: emit)
    }
    emit(html + "</table>\n</body>\n</html>\n")
  }

  func does(_ task: TaskDefinition) -> String {
    switch task.action {
    case .group: return "<span class=\"muted\">(group)</span>"
    case .shell(let commands):
      return commands.map { "<pre>$ \(MarkupText.xml($0.text))</pre>" }.joined()
    case .image(let steps):
      return "<pre>" + steps.map { MarkupText.xml($0.summary) }.joined(separator: "\n") + "</pre>"
    }
  }

  /// An id-safe form of a task name.
  func anchor(_ name: String) -> String {
    String(name.unicodeScalars.map { $0.properties.isAlphabetic || ("0"..."9").contains($0) ? Character($0) : "-" })
  }

  /// Graphviz's SVG without its XML declaration and DOCTYPE, for inlining in HTML.
  static func stripProlog(_ svg: String) -> String {
    guard let start = svg.firstRange(of: "<svg") else { return svg }
    return String(svg[start.lowerBound...])
  }
}
