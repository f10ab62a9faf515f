import Glibc
import RunnerBasics
import RunnerEvents
import RunnerModel

/// `--timeline FILE`: the run as an SVG Gantt chart.
///
/// One row per lane (a concurrency slot), one bar per attempt, coloured by outcome and
/// labelled with the task's name; a time axis below; the run's critical path — the chain
/// of tasks that set its length — outlined and listed. Hovering a bar shows its details.
/// A service's bar is paler until it was ready and has a tick where it was asked to stop.
package struct TimelineRenderer: Sendable {
  static let width = 1100.0
  static let gutter = 64.0
  static let margin = 32.0
  static let rowHeight = 34.0
  static let barHeight = 24.0
  static let top = 64.0

  static let colors: [TaskState: String] = [
    .succeeded: "#2da44e", .failed: "#cf222e", .cancelled: "#8c959f", .skipped: "#8c959f",
  ]
  static let retriedColor = "#d4a72c"

  package init() {}

  package func render(_ selection: GraphSelection, record: RunRecord, summary: RunSummary) -> String {
    let graph = selection.graph
    let lanes = max(1, record.laneCount)
    let latest = record.attempts.map { $0.end ?? record.duration }.max() ?? .zero
    let total = max(seconds(max(record.duration, latest)), 0.001)
    let plot = Self.width - Self.gutter - Self.margin
    let x = { (time: Duration) in Self.gutter + seconds(time) / total * plot }
    let axisY = Self.top + Double(lanes) * Self.rowHeight + 8
    let critical = record.criticalPath(graph)
    let onPath = Set(critical)
    let notRun = selection.members.filter { record.outcomes[$0]?.start == nil }
    let height = axisY + 104 + (notRun.isEmpty ? 0 : 20)

    var svg = """
      <svg xmlns="http://www.w3.org/2000/svg" width="\(n(Self.width))" height="\(n(height))" \
      viewBox="0 0 \(n(Self.width)) \(n(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
      <rect width="100%" height="100%" fill="#ffffff"/>

      """
    let verdict = summary.succeeded ? "succeeded" : summary.interruption != nil ? "interrupted" : "failed"
    let title = "runner \(graph.file.path) — \(verdict) in \(formatDuration(summary.duration))"
    svg += text(Self.gutter, 24, title, attributes: "font-size=\"16\" font-weight=\"bold\" fill=\"#1f2328\"")
    let counts = TaskState.allCases.filter(\.isFinal).compactMap { state -> String? in
      guard let count = summary.counts[state], count > 0 else { return nil }
      return "\(count) \(state.rawValue)"
    }
    let subtitle = "\(selection.members.count) tasks: \(counts.joined(separator: ", ")) · -j\(record.concurrency)"
    svg += text(Self.gutter, 44, subtitle, attributes: "fill=\"#57606a\"")

    // Lanes, with alternating backgrounds so a bar's row is obvious.
    for lane in 0..<lanes {
      let y = Self.top + Double(lane) * Self.rowHeight
      if lane % 2 == 0 {
        svg +=
          "<rect x=\"\(n(Self.gutter))\" y=\"\(n(y))\" width=\"\(n(plot))\" height=\"\(n(Self.rowHeight))\" fill=\"#f6f8fa\"/>\n"
      }
      svg += text(
        Self.gutter - 8, y + Self.rowHeight / 2 + 4, "lane \(lane + 1)",
        attributes: "text-anchor=\"end\" fill=\"#57606a\"")
    }

    // The time axis and its grid.
    let step = tickStep(total)
    var tick = 0.0
    while tick <= total + step * 1e-6 {
      let tx = Self.gutter + tick / total * plot
      svg +=
        "<line x1=\"\(n(tx))\" y1=\"\(n(Self.top))\" x2=\"\(n(tx))\" y2=\"\(n(axisY))\" stroke=\"#d0d7de\" stroke-width=\"1\"/>\n"
      svg += text(tx, axisY + 16, tickLabel(tick, step: step), attributes: "text-anchor=\"middle\" fill=\"#57606a\"")
      tick += step
    }
    svg +=
      "<line x1=\"\(n(Self.gutter))\" y1=\"\(n(axisY))\" x2=\"\(n(Self.gutter + plot))\" y2=\"\(n(axisY))\" stroke=\"#57606a\" stroke-width=\"1\"/>\n"

    // A retry's wait: a dashed line from the failed attempt to the next.
    for (position, attempt) in record.attempts.enumerated() where attempt.number > 1 {
      guard
        let previous = record.attempts[..<position].last(where: { $0.task == attempt.task }),
        let end = previous.end
      else { continue }
      let y = Self.top + Double(previous.lane) * Self.rowHeight + Self.rowHeight / 2
      let y2 = Self.top + Double(attempt.lane) * Self.rowHeight + Self.rowHeight / 2
      svg += "<line x1=\"\(n(x(end)))\" y1=\"\(n(y))\" x2=\"\(n(x(attempt.start)))\" y2=\"\(n(y2))\" "
      svg += "stroke=\"\(Self.retriedColor)\" stroke-width=\"2\" stroke-dasharray=\"5 4\"/>\n"
    }

    // The bars: the critical path's drawn last, outlined.
    let ordered =
      record.attempts.filter { !onPath.contains($0.task) } + record.attempts.filter { onPath.contains($0.task) }
    for attempt in ordered {
      let start = x(attempt.start)
      let width = max(2, x(attempt.end ?? record.duration) - start)
      let y = Self.top + Double(attempt.lane) * Self.rowHeight + (Self.rowHeight - Self.barHeight) / 2
      let final = record.outcomes[attempt.task]
      let retried = attempt.outcome == .failed && (final?.attempts ?? 0) > attempt.number
      let fill = retried ? Self.retriedColor : Self.colors[attempt.outcome ?? .cancelled] ?? "#8c959f"
      let isCritical = onPath.contains(attempt.task)
      let stroke = isCritical ? " stroke=\"#1f2328\" stroke-width=\"2.5\"" : ""
      let name = graph[attempt.task].name
      svg +=
        "<g>\n<title>\(MarkupText.xml(tooltip(attempt, name: name, retried: retried, critical: isCritical)))</title>\n"
      svg +=
        "<rect x=\"\(n(start))\" y=\"\(n(y))\" width=\"\(n(width))\" height=\"\(n(Self.barHeight))\" rx=\"3\" fill=\"\(fill)\"\(stroke)/>\n"
      // A service: paler until it was ready, a tick where it was asked to stop.
      if let ready = attempt.ready, x(ready) > start {
        svg +=
          "<rect x=\"\(n(start))\" y=\"\(n(y))\" width=\"\(n(x(ready) - start))\" height=\"\(n(Self.barHeight))\" rx=\"3\" fill=\"#ffffff\" fill-opacity=\"0.45\"/>\n"
      }
      if let stopping = attempt.stopping {
        svg +=
          "<line x1=\"\(n(x(stopping)))\" y1=\"\(n(y))\" x2=\"\(n(x(stopping)))\" y2=\"\(n(y + Self.barHeight))\" stroke=\"#1f2328\" stroke-width=\"1.5\"/>\n"
      }
      let label = fit(name + (attempt.number > 1 ? " #\(attempt.number)" : ""), width: width - 8)
      if !label.isEmpty {
        let color = retried ? "#1f2328" : "#ffffff"
        svg += text(start + 4, y + Self.barHeight / 2 + 4, label, attributes: "fill=\"\(color)\" font-weight=\"bold\"")
      }
      svg += "</g>\n"
    }

    // Legend, the critical path in words, the tasks that never ran.
    var legendX = Self.gutter
    let legendY = axisY + 40
    for (label, color) in [
      ("succeeded", "#2da44e"), ("failed", "#cf222e"), ("failed, then retried", Self.retriedColor),
      ("cancelled", "#8c959f"),
    ] {
      svg +=
        "<rect x=\"\(n(legendX))\" y=\"\(n(legendY - 10))\" width=\"12\" height=\"12\" rx=\"2\" fill=\"\(color)\"/>\n"
      svg += text(legendX + 17, legendY, label, attributes: "fill=\"#1f2328\"")
      legendX += 32 + Double(label.count) * 6
    }
    svg +=
      "<rect x=\"\(n(legendX))\" y=\"\(n(legendY - 10))\" width=\"12\" height=\"12\" rx=\"2\" fill=\"#ffffff\" stroke=\"#1f2328\" stroke-width=\"2.5\"/>\n"
    svg += text(legendX + 17, legendY, "critical path", attributes: "fill=\"#1f2328\"")
    if !critical.isEmpty {
      let span = (record.outcomes[critical.last!]?.end ?? .zero) - (record.outcomes[critical.first!]?.start ?? .zero)
      let chain = critical.map { graph[$0].name }.joined(separator: " → ")
      svg += text(
        Self.gutter, legendY + 24, "critical path (\(formatDuration(span))): \(chain)", attributes: "fill=\"#1f2328\"")
    }
    if !notRun.isEmpty {
      let list = notRun.map { "\(graph[$0].name) (\(record.outcomes[$0]?.state.rawValue ?? "cancelled"))" }
      svg += text(Self.gutter, legendY + 44, "not run: " + list.joined(separator: ", "), attributes: "fill=\"#57606a\"")
    }
    return svg + "</svg>\n"
  }

  func tooltip(_ attempt: RunRecord.Attempt, name: String, retried: Bool, critical: Bool) -> String {
    let end = attempt.end.map { MarkupText.seconds($0) + "s" } ?? "the end"
    var lines = [
      "\(name) — attempt \(attempt.number), lane \(attempt.lane + 1)",
      "\(retried ? "failed, retried" : (attempt.outcome ?? .cancelled).rawValue): \(MarkupText.seconds(attempt.start))s → \(end)",
    ]
    if let ready = attempt.ready { lines.append("service ready at \(MarkupText.seconds(ready))s") }
    if let stopping = attempt.stopping { lines.append("asked to stop at \(MarkupText.seconds(stopping))s") }
    if let reason = attempt.reason { lines.append(reason) }
    if critical { lines.append("on the critical path") }
    return lines.joined(separator: "\n")
  }

  func text(_ x: Double, _ y: Double, _ content: String, attributes: String) -> String {
    "<text x=\"\(n(x))\" y=\"\(n(y))\" \(attributes)>\(MarkupText.xml(content))</text>\n"
  }

  /// The label cut to the bar's width (about 7 px a character in bold 12 px Helvetica).
  func fit(_ label: String, width: Double) -> String {
    let room = Int(width / 7)
    if label.count <= room { return label }
    return room >= 3 ? String(label.prefix(room - 1)) + "…" : ""
  }

  /// 1, 2 or 5 × a power of ten, for about eight ticks.
  func tickStep(_ total: Double) -> Double {
    let rough = total / 8
    let power = pow(10, floor(log10(rough)))
    for factor in [1.0, 2, 5] where rough <= factor * power { return factor * power }
    return 10 * power
  }

  func tickLabel(_ value: Double, step: Double) -> String {
    if step < 0.001 { return MarkupText.fixed(value * 1000, places: 2) + "ms" }
    if step < 0.1 { return MarkupText.fixed(value * 1000, places: 0) + "ms" }
    if value >= 120 && step >= 60 { return MarkupText.fixed(value / 60, places: 0) + "m" }
    return MarkupText.fixed(value, places: step < 1 ? 1 : 0) + "s"
  }

  func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
  }

  /// Coordinates with at most one decimal, so the file is small and stable.
  func n(_ value: Double) -> String {
    let text = MarkupText.fixed(value, places: 1)
    return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
  }
}
