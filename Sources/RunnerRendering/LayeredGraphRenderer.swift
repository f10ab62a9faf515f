import RunnerBasics
import RunnerModel

/// The selected graph as SVG without Graphviz: one column per stage, left to right, each
/// task a box; rows ordered by the mean row of their dependencies to keep edges short;
/// edges as curves, routed through the gaps of the columns they cross; the critical path's
/// drawn bold.
package struct LayeredGraphRenderer: Sendable {
  static let rowHeight = 58.0
  static let boxHeight = 40.0
  static let columnGap = 70.0
  static let margin = 16.0

  package init() {}

  package func render(_ selection: GraphSelection) -> String {
    TextPieces.collect { write(selection, to: $0) }
  }

  package func write(_ selection: GraphSelection, to emit: (String) -> Void) {
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
    var column = [Int: Int]()
    for (index, stage) in ordered.enumerated() { for node in stage { column[node] = index } }
    for edge in selection.edges {
      guard let from = box[edge.from], let to = box[edge.to], let first = column[edge.from], let last = column[edge.to]
      else { continue }
      let start = (x: from.x + from.width, y: from.y + Self.boxHeight / 2)
      let end = (x: to.x, y: to.y + Self.boxHeight / 2)
      // An edge that skips stages crosses each column between in a gap between its boxes (the
      // one nearest the straight line), never through a box.
      var path = "M \(n(start.x)) \(n(start.y))"
      var at = start
      for between in (first + 1)..<max(first + 1, last) {
        let middle = columnX[between] + columnWidth[between] / 2
        let wanted = start.y + (end.y - start.y) * (middle - start.x) / (end.x - start.x)
        let y = gap(nearest: wanted, in: ordered[between], box: box)
        path += curve(from: at, to: (columnX[between], y)) + " L \(n(columnX[between] + columnWidth[between])) \(n(y))"
        at = (columnX[between] + columnWidth[between], y)
      }
      path += curve(from: at, to: end)
      let bold = criticalEdges.contains("\(edge.from)>\(edge.to)")
      let color = edge.carriesImage ? "#1a73e8" : bold ? "#1f2328" : "#8c959f"
      svg += "<path d=\"\(path)\" "
      svg += "fill=\"none\" stroke=\"\(color)\" stroke-width=\"\(bold ? "2.5" : "1.5")\" marker-end=\"url(#arrow)\"/>\n"
      TextPieces.flush(&svg, to: emit)
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
      svg += MarkupText.xml(task.pictureKind) + "</text>\n</g>\n"
      TextPieces.flush(&svg, to: emit)
    }
    emit(svg + "</svg>\n")
  }

  /// A curve leaving and arriving horizontally.
  func curve(from start: (x: Double, y: Double), to end: (x: Double, y: Double)) -> String {
    let bend = (end.x - start.x) / 2
    return " C \(n(start.x + bend)) \(n(start.y)), \(n(end.x - bend)) \(n(end.y)), \(n(end.x)) \(n(end.y))"
  }

  /// The middle of the free band above, between or below a column's boxes nearest to `y`.
  func gap(nearest y: Double, in stage: [Int], box: [Int: (x: Double, y: Double, width: Double)]) -> Double {
    let space = Self.rowHeight - Self.boxHeight
    let tops = stage.compactMap { box[$0]?.y }.sorted()
    guard let lowest = tops.last else { return y }
    let candidates = tops.map { $0 - space / 2 } + [lowest + Self.boxHeight + space / 2]
    return candidates.min { abs($0 - y) < abs($1 - y) } ?? y
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
