import ArgumentParser
import RunnerKit

/// Options for CI formats and pictures of a run.
struct ReportOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "CI output: github (log groups, annotations, step summary) or none.",
      discussion: "Default: github when GITHUB_ACTIONS=true, else none."))
  var ci: ReportSettings.CI?

  @Option(
    help: ArgumentHelp(
      "Task output: prefixed (each line as it comes), grouped (each task's lines together when it ends) "
        + "or quiet (only failed tasks' output).", valueName: "mode"))
  var output: ReportSettings.OutputMode = .prefixed

  @Option(
    help: ArgumentHelp(
      "How a run is shown on a terminal: lines (task output as it comes) or tui (a live full-screen view).",
      discussion: "tui needs a terminal (stdin and stdout) and is not used in CI; lines is used instead.",
      valueName: "ui"))
  var ui: ReportSettings.UI = .lines

  @Option(
    help: ArgumentHelp("After the run, write a JUnit XML report to FILE.", valueName: "file"), completion: .file())
  var junit: String?

  @Option(
    help: ArgumentHelp(
      "After the run, write it to FILE as Chrome trace-event JSON (Perfetto, chrome://tracing).", valueName: "file"),
    completion: .file())
  var trace: String?

  @Option(
    help: ArgumentHelp("After the run, draw it to FILE as an SVG Gantt chart.", valueName: "file"),
    completion: .file())
  var timeline: String?

  @Option(
    help: ArgumentHelp(
      "Send the run as an OpenTelemetry trace to the OTLP/HTTP collector at URL.",
      discussion: "Default: OTEL_EXPORTER_OTLP_ENDPOINT (or …_TRACES_ENDPOINT) when set.", valueName: "url"))
  var otel: String?

  /// The report settings, with the CI detected from the environment unless named.
  func settings() -> ReportSettings {
    var settings = ReportSettings.detect(ci: ci)
    settings.sendTrace(otel: otel)
    settings.output = output
    settings.show(ui)
    settings.junitPath = junit
    settings.tracePath = trace
    settings.timelinePath = timeline
    return settings
  }
}

extension ReportSettings.CI: ExpressibleByArgument {}
extension ReportSettings.OutputMode: ExpressibleByArgument {}
extension ReportSettings.UI: ExpressibleByArgument {}
