import RunnerBasics
import RunnerEvents
import RunnerModel

/// `--junit FILE`: the run as JUnit XML, which CI systems (GitLab, Jenkins, Azure, the
/// GitHub test-report actions) show as a test report.
///
/// One `testsuite` for the task file; one `testcase` per selected task (classname: the
/// task file, name: the task, time: from its first start to its end in seconds). A failed
/// task has a `failure` whose text is the end of its output; cancelled and skipped tasks
/// are `skipped`. A service's testcase says in `system-out` when it started, was ready and
/// was asked to stop.
package struct JUnitRenderer: Sendable {
  package init() {}

  package func render(_ selection: GraphSelection, record: RunRecord, summary: RunSummary) -> String {
    let graph = selection.graph
    let file = MarkupText.xml(graph.file.path)
    var failures = 0
    var skipped = 0
    var cases = ""
    let failureOf = Dictionary(summary.failures.map { ($0.task, $0) }) { first, _ in first }
    for task in selection.members {
      let definition = graph[task]
      let outcome = record.outcomes[task]
      let time = MarkupText.seconds(outcome?.duration ?? .zero)
      cases += "    <testcase classname=\"\(file)\" name=\"\(MarkupText.xml(definition.name))\" time=\"\(time)\""
      let failure = failureOf[task]
      let lifecycle = definition.isService ? serviceLifecycle(task, record: record) : nil
      switch outcome?.state ?? (failure == nil ? .cancelled : .failed) {
      case .succeeded:
        if let lifecycle {
          cases += ">\n      <system-out>\(MarkupText.xml(lifecycle))</system-out>\n    </testcase>\n"
        } else {
          cases += "/>\n"
        }
      case .failed:
        failures += 1
        let message = failure?.reason.description ?? outcome?.reason ?? "failed"
        var text = "\(definition.location): \(message)\n"
        if let tail = failure?.tail, !tail.isEmpty {
          text += "last lines of output:\n" + tail.joined(separator: "\n") + "\n"
        }
        cases += ">\n      <failure message=\"\(MarkupText.xml(message))\" type=\"failed\">"
        cases += MarkupText.xml(text) + "</failure>\n"
        if let lifecycle { cases += "      <system-out>\(MarkupText.xml(lifecycle))</system-out>\n" }
        cases += "    </testcase>\n"
      case let state:
        skipped += 1
        let reason = outcome?.reason.map { "\(state.rawValue): \($0)" } ?? state.rawValue
        cases += ">\n      <skipped message=\"\(MarkupText.xml(reason))\"/>\n"
        if let lifecycle { cases += "      <system-out>\(MarkupText.xml(lifecycle))</system-out>\n" }
        cases += "    </testcase>\n"
      }
    }
    let total = selection.members.count
    let time = MarkupText.seconds(summary.duration)
    let counts = "tests=\"\(total)\" failures=\"\(failures)\" errors=\"0\""
    // `skipped` belongs on `testsuite` only: Jenkins' xunit schema rejects it on `testsuites`.
    return """
      <?xml version="1.0" encoding="UTF-8"?>
      <testsuites name="runner" \(counts) time="\(time)">
        <testsuite name="\(file)" \(counts) skipped="\(skipped)" time="\(time)">

      """ + cases + "  </testsuite>\n</testsuites>\n"
  }

  /// "service: started at 0.012s, ready at 0.530s, asked to stop at 2.101s, ended at 2.140s",
  /// in seconds from the start of the run; nil for a service that never started.
  func serviceLifecycle(_ task: Int, record: RunRecord) -> String? {
    guard let attempt = record.attempts.last(where: { $0.task == task }) else { return nil }
    var parts = ["started at \(MarkupText.seconds(attempt.start))s"]
    parts.append(attempt.ready.map { "ready at \(MarkupText.seconds($0))s" } ?? "never ready")
    if let stopping = attempt.stopping { parts.append("asked to stop at \(MarkupText.seconds(stopping))s") }
    if let end = attempt.end {
      // Under --watch a service the run let go stays up for the next one.
      let kept = attempt.reason?.hasPrefix("kept up") == true
      parts.append("\(kept ? "kept up for the next run" : "ended") at \(MarkupText.seconds(end))s")
    }
    return "service: " + parts.joined(separator: ", ")
  }
}
