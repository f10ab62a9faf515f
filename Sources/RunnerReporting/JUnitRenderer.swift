import RunnerBasics
import RunnerExecution
import RunnerModel

/// `--junit FILE`: the run as JUnit XML, which CI systems (GitLab, Jenkins, Azure, the
/// GitHub test-report actions) show as a test report.
///
/// One `testsuite` for the task file; one `testcase` per selected task (classname: the
/// task file, name: the task, time: from its first start to its end in seconds). A failed
/// task has a `failure` whose text is the end of its output; cancelled and skipped tasks
/// are `skipped`.
package struct JUnitRenderer: Sendable {
  package init() {}

  package func render(_ selection: GraphSelection, record: RunRecord, summary: RunSummary) -> String {
    let graph = selection.graph
    let file = MarkupText.xml(graph.file.path)
    var failures = 0
    var skipped = 0
    var cases = ""
    for task in selection.members {
      let definition = graph[task]
      let outcome = record.outcomes[task]
      let time = MarkupText.seconds(outcome?.duration ?? .zero)
      cases += "    <testcase classname=\"\(file)\" name=\"\(MarkupText.xml(definition.name))\" time=\"\(time)\""
      let failure = summary.failures.first { $0.task == task }
      switch outcome?.state ?? (failure == nil ? .cancelled : .failed) {
      case .succeeded:
        cases += "/>\n"
      case .failed:
        failures += 1
        let message = failure?.reason.description ?? outcome?.reason ?? "failed"
        var text = "\(definition.location): \(message)\n"
        if let tail = failure?.tail, !tail.isEmpty {
          text += "last lines of output:\n" + tail.joined(separator: "\n") + "\n"
        }
        cases += ">\n      <failure message=\"\(MarkupText.xml(message))\" type=\"failed\">"
        cases += MarkupText.xml(text) + "</failure>\n    </testcase>\n"
      case let state:
        skipped += 1
        let reason = outcome?.reason.map { "\(state.rawValue): \($0)" } ?? state.rawValue
        cases += ">\n      <skipped message=\"\(MarkupText.xml(reason))\"/>\n    </testcase>\n"
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
}
