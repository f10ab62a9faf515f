import RunnerBasics
import RunnerEvents
import RunnerModel

/// The Markdown appended to `$GITHUB_STEP_SUMMARY`: a headline, a table of the tasks
/// (result, duration, attempts) and each failure with its last lines.
package struct StepSummaryRenderer: Sendable {
  package init() {}

  package func render(_ selection: GraphSelection, record: RunRecord, summary: RunSummary) -> String {
    let graph = selection.graph
    let counts = TaskState.allCases.filter(\.isFinal).compactMap { state -> String? in
      guard let count = summary.counts[state], count > 0 else { return nil }
      return "\(count) \(state.rawValue)"
    }
    let verdict = summary.succeeded ? "✅" : "❌"
    var out = "### \(verdict) runner: \(cell(graph.file.path))\n\n"
    out += counts.joined(separator: ", ") + " in " + formatDuration(summary.duration)
    if let signal = summary.interruption {
      out += " — interrupted by \(signalName(signal))"
    }
    if let deadlock = summary.deadlock { out += " — deadlock: \(cell(deadlock))" }
    out += "\n\n| task | result | duration | attempts |\n|:---|:---|---:|---:|\n"
    let failed = Set(summary.failures.map(\.task))
    for task in selection.members {
      let outcome = record.outcomes[task]
      let state = outcome?.state ?? (failed.contains(task) ? .failed : .cancelled)
      var result = Self.symbol(state) + " " + state.rawValue
      if state != .succeeded, let reason = outcome?.reason { result += ": " + cell(reason) }
      if state == .succeeded, let reason = outcome?.reason, reason.first?.isNumber == false { result += " (\(reason))" }
      let duration = outcome.map { $0.start == nil ? "–" : formatDuration($0.duration) } ?? "–"
      let attempts = outcome.map { $0.attempts == 0 ? "–" : String($0.attempts) } ?? "–"
      out += "| `\(graph[task].name.replacing("`", with: "'"))` | \(result) | \(duration) | \(attempts) |\n"
    }
    for failure in summary.failures {
      let task = graph[failure.task]
      out +=
        "\n<details open><summary>❌ <code>\(MarkupText.xml(task.name))</code> (\(MarkupText.xml(task.location.description))): "
      out += MarkupText.xml(failure.reason.description) + "</summary>\n\n"
      if failure.tail.isEmpty {
        out += "(no output)\n"
      } else {
        let fence = String(repeating: "`", count: max(3, longestBacktickRun(failure.tail) + 1))
        out += fence + "text\n" + failure.tail.joined(separator: "\n") + "\n" + fence + "\n"
      }
      out += "\n</details>\n"
    }
    return out + "\n"
  }

  static func symbol(_ state: TaskState) -> String {
    switch state {
    case .succeeded: return "✅"
    case .failed: return "❌"
    case .skipped: return "⏭️"
    case .cancelled, .pending, .ready, .executing: return "⊘"
    }
  }

  /// Text safe inside a table cell: one line, pipes escaped.
  func cell(_ text: String) -> String {
    text.replacing("\r", with: " ").replacing("\n", with: " ").replacing("|", with: "\\|")
  }

  func longestBacktickRun(_ lines: [String]) -> Int {
    var longest = 0
    for line in lines {
      var run = 0
      for character in line {
        run = character == "`" ? run + 1 : 0
        longest = max(longest, run)
      }
    }
    return longest
  }
}
