import RunnerBasics
import RunnerEvents
import RunnerModel
import RunnerReporting

/// Everything a run reports through: the console (or its GitHub form), the recorder of the
/// report files, the events file, behind one `ObserverList` that masks secrets. A run and a
/// run concluded from the no-op record (`NoOpRun`) make theirs here alike, so both report the
/// same way.
struct RunReporters: Sendable {
  let console: ConsoleReporter
  let reports: RunReports
  let eventLog: EventLogWriter?
  let observer: ObserverList
  /// The live view (`--ui tui`), which has the console's place in the observers.
  var view: LiveReporter? { reports.console as? LiveReporter }

  /// The tasks a run reports on.
  struct Tasks {
    /// Every task's name as shown (secrets masked), by index.
    var names: [String]
    /// The indices of the selected tasks.
    var selected: [Int]
    /// The graph, for the report files; nil when none is asked for.
    var selection: GraphSelection?
    var interactive: Set<Int> = []
  }

  /// - Parameters:
  ///   - extra: observers besides the reporters (the no-op watcher).
  /// - Returns: the reporters, or the problem of an events file that cannot be created.
  static func make(
    _ tasks: Tasks, reports: ReportSettings, eventsPath: String?, secrets: SecretMask, spoolDirectory: String = "/tmp",
    extra: [any RunObserver] = []
  ) -> Result<RunReporters, Diagnostic> {
    let live = reports.ui == .tui
    let console = ConsoleReporter(
      names: tasks.names, selected: tasks.selected, useColor: Terminal.colorEnabled(for: 1),
      statusArea: !live && reports.ci == .none && ConsoleReporter.wantsStatusArea(),
      mode: reports.output, spoolDirectory: spoolDirectory, interactive: tasks.interactive)
    let view =
      live
      ? LiveReporter(
        names: tasks.names, members: tasks.selected, console: console, interactive: tasks.interactive,
        useColor: Terminal.colorEnabled(for: 1)) : nil
    let runReports = RunReports(
      settings: reports, names: tasks.names, selection: tasks.selection, console: console, live: view)
    var observers = runReports.observers + extra
    var eventLog: EventLogWriter?
    if let path = eventsPath {
      do {
        let writer = try EventLogWriter(path: path, taskNames: tasks.names)
        observers.append(writer)
        eventLog = writer
      } catch {
        return .failure(.error(error, at: nil))
      }
    }
    return .success(
      RunReporters(
        console: console, reports: runReports, eventLog: eventLog, observer: ObserverList(observers, mask: secrets)))
  }

  /// The run is over: every observer hears it and the events file is closed.
  func close(_ summary: RunSummary) {
    observer.record(RunEvent(time: summary.duration, task: nil, kind: .runFinished(summary)))
    view?.finish()
    eventLog?.close()
  }

  /// Prints the summary, then writes the annotations and the report files.
  ///
  /// - Parameter summary: masked already.
  /// - Returns: whether the events file or a report is incomplete (a write to it failed).
  func summarize(_ summary: RunSummary, graph: TaskGraph?, remark: String? = nil) -> Bool {
    console.printSummary(summary, graph: graph, remark: remark)
    let problems = reports.finish(summary)
    DiagnosticPrinter().print(problems)
    return !problems.isEmpty || eventLog?.writeFailure != nil
  }
}
