import RunnerBasics
import RunnerModel

/// Which reports a run writes besides the console: CI formats and pictures of the run.
public struct ReportSettings: Sendable {
  public enum CI: String, Sendable, CaseIterable {
    /// Plain console output.
    case none
    /// GitHub Actions: log groups, annotations, the step summary.
    case github
  }

  /// How task output reaches the console.
  public enum OutputMode: String, Sendable, CaseIterable {
    /// Each line as it comes, prefixed with its task's name.
    case prefixed
    /// Each task's lines together, printed when the task ends.
    case grouped
    /// Only the output of tasks that fail, when they fail.
    case quiet
  }

  /// How the run is shown on a terminal.
  public enum UI: String, Sendable, CaseIterable {
    /// Lines as they come, with a status line at the bottom of a terminal.
    case lines
    /// A live full-screen view (`LiveReporter`); lines where it cannot be had.
    case tui
  }

  public var ci: CI
  /// `--ui`.
  public var ui: UI = .lines
  /// Why `--ui tui` shows lines (said before the run).
  public var uiFallback: String?
  /// `--output`.
  public var output: OutputMode = .prefixed
  /// `$GITHUB_STEP_SUMMARY`: where the Markdown summary is appended (GitHub only).
  public var stepSummaryPath: String?
  /// `$GITHUB_WORKSPACE`: annotation paths are made relative to it.
  public var workspace: String?
  /// `--junit FILE`.
  public var junitPath: String?
  /// `--trace FILE`.
  public var tracePath: String?
  /// `--timeline FILE`.
  public var timelinePath: String?
  /// `--otel URL` or `OTEL_EXPORTER_OTLP_ENDPOINT`: the run as an OpenTelemetry trace.
  public var telemetry: TelemetrySettings?
  /// Why a trace asked for is not sent (said once, at the end of the run).
  public var telemetryProblem: String?

  /// Shows runs as `ui` says where that can be done: `tui` needs a terminal and no CI. Where
  /// it cannot, lines, and `uiFallback` says why (not in CI, which never has the view).
  public mutating func show(_ ui: UI) {
    self.ui = .lines
    uiFallback = nil
    guard ui == .tui, ci == .none else { return }
    switch LiveTerminal.unavailability() {
    case nil: self.ui = .tui
    case .ci: break
    case .because(let reason): uiFallback = "--ui tui needs a terminal (\(reason)); showing lines"
    }
  }

  /// Sends the run's trace where `--otel URL` (nil: the environment) says.
  public mutating func sendTrace(otel flag: String?) {
    (telemetry, telemetryProblem) = TelemetrySettings.resolve(flag: flag, environment: ProcessEnvironment.current)
  }

  public init(
    ci: CI = .none, stepSummaryPath: String? = nil, workspace: String? = nil, junitPath: String? = nil,
    tracePath: String? = nil, timelinePath: String? = nil
  ) {
    self.ci = ci
    self.stepSummaryPath = stepSummaryPath
    self.workspace = workspace
    self.junitPath = junitPath
    self.tracePath = tracePath
    self.timelinePath = timelinePath
  }

  /// The CI named on the command line, else the one the environment reveals
  /// (`GITHUB_ACTIONS=true`), with its variables.
  public static func detect(ci: CI?, environment: [String: String]) -> ReportSettings {
    let chosen = ci ?? (environment["GITHUB_ACTIONS"] == "true" ? .github : CI.none)
    guard chosen == .github else { return ReportSettings() }
    let summary = environment["GITHUB_STEP_SUMMARY"].flatMap { $0.isEmpty ? nil : $0 }
    return ReportSettings(ci: .github, stepSummaryPath: summary, workspace: environment["GITHUB_WORKSPACE"])
  }

  /// Whether the run needs a `RunRecorder`.
  package var needsRecord: Bool {
    stepSummaryPath != nil || junitPath != nil || tracePath != nil || timelinePath != nil || telemetry != nil
  }
}

extension ReportSettings {
  /// `detect(ci:environment:)` with runner's own environment.
  public static func detect(ci: CI?) -> ReportSettings {
    detect(ci: ci, environment: ProcessEnvironment.current)
  }

  /// On GitHub Actions, each diagnostic as an annotation, for stdout (the CLI prints them to
  /// stderr as well); empty elsewhere.
  package func annotations(_ diagnostics: [Diagnostic]) -> String {
    guard ci == .github else { return "" }
    return diagnostics.map { GitHubAnnotation($0).command(workspace: workspace) }.joined()
  }
}
