import RunnerBasics
import RunnerEvents
import RunnerModel
import RunnerRemote
import RunnerReporting

/// The run sent to an OpenTelemetry collector once it is over (`--otel`, `OTEL_EXPORTER_OTLP_…`).
enum TraceExport {
  /// The trace a run with telemetry belongs to: the one runner's own `TRACEPARENT` names (a
  /// runner started by a task of another run, or by a CI step that traces), or a new one.
  static func context(for reports: ReportSettings) -> TraceContext? {
    guard reports.telemetry != nil else { return nil }
    return TraceContext.start(traceparent: ProcessEnvironment.current["TRACEPARENT"])
  }

  /// Sends the run's spans; a collector that is down or slow costs at most the timeout, and a
  /// warning on stderr.
  static func send(
    _ reports: RunReports, _ summary: RunSummary, trace: TraceContext?, selection: GraphSelection
  ) async {
    if let problem = reports.settings.telemetryProblem { Terminal.write("runner: warning: \(problem)\n", to: 2) }
    guard let telemetry = reports.settings.telemetry, let trace else { return }
    let targets = selection.targets.map { selection.graph[$0].name }
    guard
      let payload = reports.telemetryPayload(
        summary, trace: trace, file: selection.graph.file.path, targets: targets, version: Runner.version)
    else { return }
    if let warning = await OTLPExporter.send(
      payload, to: telemetry.endpoint, headers: telemetry.headers.map { ($0.name, $0.value) },
      timeout: telemetry.timeout)
    {
      Terminal.write("runner: warning: \(warning)\n", to: 2)
    }
  }
}
