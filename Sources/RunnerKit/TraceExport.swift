import RunnerBasics
import RunnerEvents
import RunnerModel
import RunnerRemote
import RunnerReporting

/// The run sent to an OpenTelemetry collector once it is over (`--otel`, `OTEL_EXPORTER_OTLP_…`).
enum TraceExport {
  /// The trace a run with telemetry belongs to: the one runner's own `TRACEPARENT` names (a
  /// runner started by a task of another run, or by a CI step that traces), or a new one.
  /// nil when the caller's `TRACEPARENT` says the trace is not sampled: nothing is recorded.
  static func context(for reports: ReportSettings) -> TraceContext? {
    guard reports.telemetry != nil else { return nil }
    let context = TraceContext.start(traceparent: ProcessEnvironment.current["TRACEPARENT"])
    return context.sampled ? context : nil
  }

  /// Sends the run's spans; a collector that is down or slow costs at most the timeout (300 ms
  /// after Ctrl-C), and a warning on stderr. The send is not cancelled with the run: `--watch`
  /// cancels a run when a change comes, and that run's trace still goes.
  static func send(
    _ reports: RunReports, _ summary: RunSummary, trace: TraceContext?, selection: GraphSelection
  ) async {
    if let problem = reports.settings.telemetryProblem { Terminal.write("runner: warning: \(problem)\n", to: 2) }
    guard let telemetry = reports.settings.telemetry, let trace else { return }
    let targets = selection.targets.map { reports.name(of: $0) ?? selection.graph[$0].name }
    guard
      let payload = reports.telemetryPayload(
        summary, trace: trace, file: selection.graph.file.path, targets: targets, version: Runner.version)
    else { return }
    let timeout = summary.interruption == nil ? telemetry.timeout : min(telemetry.timeout, .milliseconds(300))
    let headers = telemetry.headers.map { ($0.name, $0.value) }
    let sent = Task { await OTLPExporter.send(payload, to: telemetry.endpoint, headers: headers, timeout: timeout) }
    if let warning = await sent.value {
      Terminal.write("runner: warning: \(warning)\n", to: 2)
    }
  }
}
