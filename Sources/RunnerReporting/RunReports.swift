import RunnerBasics
import RunnerEvents
import RunnerModel

/// The console and the reports of one run, as `RunSession` uses them: the observers to
/// attach, and the files and annotations to write once the run is over.
package struct RunReports: Sendable {
  package let settings: ReportSettings
  /// The graph the report files and annotations place tasks in; nil for a run concluded from
  /// the no-op record, which is never one that writes a report file (`needsRecord`).
  package let selection: GraphSelection?
  /// Replaces the plain console in the observer list.
  package let console: any RunObserver
  let recorder: RunRecorder?
  /// Every task's name as shown (secrets masked), by index.
  let names: [String]

  /// - Parameter names: every task's name as shown (secrets masked), by index.
  /// - Parameter live: the live view, which then has the console's place.
  package init(
    settings: ReportSettings, names: [String], selection: GraphSelection?, console: ConsoleReporter,
    live: LiveReporter? = nil
  ) {
    self.settings = settings
    self.selection = selection
    self.names = names
    if let live {
      self.console = live
    } else if settings.ci == .github {
      self.console = GitHubActionsReporter(console: console, names: names)
    } else {
      self.console = console
    }
    recorder = settings.needsRecord && selection != nil ? RunRecorder() : nil
  }

  /// SIGINT or SIGTERM: held output (GitHub groups) is written at once.
  package func interrupt() {
    (console as? GitHubActionsReporter)?.interrupt()
    (console as? LiveReporter)?.interrupt()
  }

  /// The console (or its GitHub form), then the recorder when a report needs one.
  package var observers: [any RunObserver] {
    [console] + (recorder.map { [$0] } ?? [])
  }

  /// Writes the annotations of the failures and every report file.
  ///
  /// - Returns: the problems, one diagnostic per file that could not be written.
  package func finish(_ summary: RunSummary) -> [Diagnostic] {
    if settings.ci == .github {
      Terminal.write(annotations(summary).map { $0.command(workspace: settings.workspace) }.joined(), to: 1)
    }
    guard let record = recorder?.record, let selection else { return [] }
    var problems: [Diagnostic] = []
    let files: [(String?, () -> String)] = [
      (settings.junitPath, { JUnitRenderer().render(selection, record: record, summary: summary) }),
      (settings.tracePath, { TraceRenderer().render(selection, record: record, summary: summary) }),
      (settings.timelinePath, { TimelineRenderer().render(selection, record: record, summary: summary) }),
    ]
    for case (let path?, let render) in files {
      do { try ReportFile.write(render(), to: path) } catch { problems.append(.error(error, at: nil)) }
    }
    if let path = settings.stepSummaryPath {
      let markdown = StepSummaryRenderer().render(selection, record: record, summary: summary)
      do { try ReportFile.append(markdown, to: path) } catch { problems.append(.error(error, at: nil)) }
    }
    return problems
  }

  /// The task's name as shown (secrets masked).
  package func name(of task: Int) -> String? { names.indices.contains(task) ? names[task] : nil }

  /// The run as an OTLP trace export request (protobuf), when a collector is named: the run's
  /// span alone for a run concluded from the no-op record.
  package func telemetryPayload(
    _ summary: RunSummary, trace: TraceContext, file: String, targets: [String], version: String
  )
    -> [UInt8]?
  {
    guard let telemetry = settings.telemetry else { return nil }
    let renderer = OTLPTraceRenderer(trace: trace, serviceName: telemetry.serviceName, version: version)
    let start =
      recorder?.startNanoseconds
      ?? UInt64(max(0, SystemClock().wallNanoseconds - OTLPTraceRenderer.nanoseconds(summary.duration)))
    return renderer.render(
      file: file, targets: targets, start: start, names: names, record: selection == nil ? nil : recorder?.record,
      summary: summary)
  }

  /// One `::error` per failed task, at its definition, with the end of its output.
  package func annotations(_ summary: RunSummary) -> [GitHubAnnotation] {
    var list = summary.failures.compactMap { failure -> GitHubAnnotation? in
      guard let task = selection?.graph[failure.task] else { return nil }
      var message = failure.reason.description
      if !failure.tail.isEmpty { message += "\n\nlast lines of output:\n" + failure.tail.joined(separator: "\n") }
      return GitHubAnnotation(.error, message, title: "task '\(task.name)' failed", at: task.location)
    }
    if let deadlock = summary.deadlock { list.append(GitHubAnnotation(.error, deadlock, title: "deadlock")) }
    return list
  }
}
