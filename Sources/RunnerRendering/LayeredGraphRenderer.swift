import RunnerBasics
import RunnerModel

/// The selected graph as SVG without Graphviz: one column per stage, left to right, each
/// task a box; rows ordered by the mean row of their dependencies to keep edges short;
/// edges as curves, the critical path's drawn bold.
package struct LayeredGraphRenderer: Sendable {
  static let rowHeight = 58.0
  static let boxHeight = 40.0
  static let columnGap = 70.0
  static let margin = 16.0

  package init() {}

  package func render(_ selection: GraphSelection) -> String {
    let graph = selection.graph
    let stages = selection.stages
    // Order each stage by the mean row of its dependencies in earlier stages.
    var row = [Int: Double]()
    var ordered: [[Int]] = []
    for stage in stages {
      let sorted = stage.enumerated().sorted { lhs, rhs in
        let a = meanRow(lhs.element, graph: graph, row: row) ?? Double(lhs.offset)
        let b = meanRow(rhs.element, graph: graph, row: row) ?? Double(rhs.offset)
        return (a, lhs.offset) < (b, rhs.offset)
      }.map(\.element)
      for (position, node) in sorted.enumerated() { row[node] = Double(position) }
      ordered.append(sorted)
    }
    var columnX: [Double] = []
    var columnWidth: [Double] = []
    var x = Self.margin
    for stage in ordered {
      let width = max(90, Double(stage.map { graph[$0].name.count }.max() ?? 0) * 7.5 + 24)
      columnX.append(x)
      columnWidth.append(width)
      x += width + Self.columnGap
    }
    let rows = ordered.map(\.count).max() ?? 0
    let width = max(x - Self.columnGap + Self.margin, 120)
    let height = Double(rows) * Self.rowHeight + 2 * Self.margin
    var box: [Int: (x: Double, y: Double, width: Double)] = [:]
    for (column, stage) in ordered.enumerated() {
      let offset = (Double(rows - stage.count) * Self.rowHeight) / 2
      for (position, node) in stage.enumerated() {
        box[node] = (columnX[column], Self.margin + offset + Double(position) * Self.rowHeight, columnWidth[column])
      }
    }
    let critical = selection.criticalPath
    let criticalEdges = Set(zip(critical, critical.dropFirst()).map { "\($0.0)>\($0.1)" })
    let targets = Set(selection.targets)
    var svg = """
      <svg xmlns="http://www.w3.org/2000/svg" width="\(n(width))" height="\(n(height))" \
      viewBox="0 0 \(n(width)) \(n(height))" font-family="Helvetica, Arial, sans-serif" font-size="13">
      <defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" \
      orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#57606a"/></marker></defs>
      <rect width="100%" height="100%" fill="#ffffff"/>

      """
    for edge in selection.edges {
      guard let from = box[edge.from], let to = box[edge.to] else { continue }
      let x1 = from.x + from.width
      let y1 = from.y + Self.boxHeight / 2
      let x2 = to.x
      let y2 = to.y + Self.boxHeight / 2
      let bend = (x2 - x1) / 2
      let bold = criticalEdges.contains("\(edge.from)>\(edge.to)")
      let color = edge.carriesImage ? "#1a73e8" : bold ? "#1f2328" : "#8c959f"
      svg += "<path d=\"M \(n(x1)) \(n(y1)) C \(n(x1 + bend)) \(n(y1)), \(n(x2 - bend)) \(n(y2)), \(n(x2)) \(n(y2))\" "
      svg += "fill=\"none\" stroke=\"\(color)\" stroke-width=\"\(bold ? "2.5" : "1.5")\" marker-end=\"url(#arrow)\"/>\n"
    }
    for node in selection.members {
      guard let place = box[node] else { continue }
      let task = graph[node]
      let fill = task.action.kindName == "image" ? "#e8f0fe" : task.action.kindName == "group" ? "#f6f8fa" : "#ffffff"
      let stroke = targets.contains(node) ? "2.5" : "1.2"
      svg += "<g><title>\(MarkupText.xml(task.name + (task.description.map { ": " + $0 } ?? "")))</title>\n"
      svg +=
        "<rect x=\"\(n(place.x))\" y=\"\(n(place.y))\" width=\"\(n(place.width))\" height=\"\(n(Self.boxHeight))\" "
      svg += "rx=\"8\" fill=\"\(fill)\" stroke=\"#1f2328\" stroke-width=\"\(stroke)\"/>\n"
      let middle = place.x + place.width / 2
      svg += "<text x=\"\(n(middle))\" y=\"\(n(place.y + 17))\" text-anchor=\"middle\" font-weight=\"bold\">"
      svg += MarkupText.xml(task.name) + "</text>\n"
      svg +=
        "<text x=\"\(n(middle))\" y=\"\(n(place.y + 32))\" text-anchor=\"middle\" font-size=\"11\" fill=\"#57606a\">"
      svg += task.action.kindName + "</text>\n</g>\n"
    }
    return svg + "</svg>\n"
  }

  func meanRow(_ node: Int, graph: TaskGraph, row: [Int: Double]) -> Double? {
    let rows = graph.dependencies[node].compactMap { row[$0] }
    return rows.isEmpty ? nil : rows.reduce(0, +) / Double(rows.count)
  }

  func n(_ value: Double) -> String {
    let text = MarkupText.fixed(value, places: 1)
    return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
  }
}
