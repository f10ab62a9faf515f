import Glibc
import RunnerBasics
import RunnerCache
import RunnerExecution
import RunnerModel
import RunnerRemote
import RunnerReporting

/// One run of a selected graph from the command line: reporters, signals, the scheduler,
/// leftover processes, the summary, the exit code.
package struct RunSession: Sendable {
  package let selection: GraphSelection
  package let settings: RunSettings
  /// CI formats and pictures of the run (`--ci`, `--junit`, `--trace`, `--timeline`).
  package let reports: ReportSettings

  /// Fetches image `load:` URLs, one connection pool for the life of the process.
  static let fetcher = HTTPFetcher(userAgent: "runner/\(RunnerVersion.semantic)")

  package init(selection: GraphSelection, settings: RunSettings, reports: ReportSettings = ReportSettings()) {
    self.selection = selection
    self.settings = settings
    self.reports = reports
  }

  /// - Returns: the exit code: 0, 1, 130 or 143 (2 when the events file or a report cannot be
  ///   created, or a write to it failed, in a run that otherwise succeeded).
  package func run() async -> Int32 {
    let graph = selection.graph
    let names = graph.tasks.map(\.name)
    let special = SpecialFileCheck.problems(in: selection)
    guard special.isEmpty else {
      DiagnosticPrinter().print(special)
      return ExitStatus.usage
    }
    let scratch: String
    switch Self.makeScratchDirectory() {
    case .success(let path): scratch = path
    case .failure(let problem):
      DiagnosticPrinter().print([Diagnostic(.error, problem.text)])
      return ExitStatus.usage
    }
    defer { Self.removeDirectory(scratch) }
    let console = ConsoleReporter(
      names: names, selected: selection.members, useColor: Terminal.colorEnabled(for: 1),
      statusArea: reports.ci == .none && ConsoleReporter.wantsStatusArea(),
      mode: reports.output, spoolDirectory: scratch,
      interactive: Set(selection.members.filter { graph[$0].isInteractive }))
    let runReports = RunReports(settings: reports, selection: selection, console: console)
    var observers = runReports.observers
    // A run that may leave a record of nothing having run (`NoOpRecord`): no report but the console's.
    let noOpWatcher =
      settings.caching.noOpInvocation != nil && settings.eventsPath == nil && reports.ci == .none
        && !reports.needsRecord ? NoOpWatcher() : nil
    if let noOpWatcher { observers.append(noOpWatcher) }
    var eventLog: EventLogWriter?
    if let path = settings.eventsPath {
      do {
        let writer = try EventLogWriter(path: path, taskNames: names)
        observers.append(writer)
        eventLog = writer
      } catch {
        DiagnosticPrinter().print([.error(error, at: nil)])
        return ExitStatus.usage
      }
    }
    let environment = Self.environment(of: graph)
    var taskEnvironment = environment
    var store: IncrementalStore?
    var lock: RunLock?
    if settings.caching.enabled {
      let directory = CacheSettings.stateDirectory(for: graph.file)
      do {
        lock = try await RunLock.acquire(
          directory: directory, wait: settings.caching.wait, onWait: RunLock.announce(directory: directory))
      } catch {
        DiagnosticPrinter().print([Diagnostic(.error, "\(error)")])
        return ExitStatus.usage
      }
      // A runner killed while saving the state left a temporary file beside it.
      CacheFileSystem.removeOrphanedTemporaries(in: directory)
      store = IncrementalStore(
        directory: directory, settings: settings.caching, environment: environment,
        keyed: Fingerprint.keyedVariables(of: graph.file), secretNames: Set(graph.file.secretNames),
        secrets: settings.secrets)
      // A runner a task starts here fails at once rather than wait for this lock forever.
      if let lock {
        let held = environment[RunLock.variable].map { $0 + ":" } ?? ""
        taskEnvironment[RunLock.variable] = held + RunLock.canonical(lock.path)
      }
    }
    defer { withExtendedLifetime(lock) {} }
    let observer = ObserverList(observers)
    let scheduler = Scheduler(
      selection: selection, settings: settings, observer: observer, scratchDirectory: scratch,
      baseEnvironment: taskEnvironment,
      factory: OperationFactory(store: store, fetcher: Self.fetcher, answers: settings.answers))
    let run = Task { await scheduler.run() }
    let watcher = SignalWatcher(
      onFirst: { _ in
        run.cancel()
        runReports.interrupt()
      },
      onSecond: {
        scheduler.cleanups.abandon()
        ProcessReactor.shared.killAllNow()
      },
      onSuspend: { ProcessReactor.shared.suspendAll() })
    // Cancelling the caller (`--watch`, when a change comes in) stops the run too.
    var summary = await withTaskCancellationHandler {
      await run.value
    } onCancel: {
      run.cancel()
    }
    store?.finish()
    summary.interruption = watcher.firstSignal ?? summary.interruption
    if let store, !settings.caching.force {
      let record = noOpWatcher.flatMap { watcher -> NoOpRecord? in
        guard summary.succeeded, let invocation = settings.caching.noOpInvocation else { return nil }
        return NoOpRecord.make(
          watcher, selection: selection, store: store, invocation: invocation,
          taskFile: settings.caching.noOpTaskFile,
          workingDirectory: scheduler.workingDirectory(of:))
      }
      NoOpRecord.save(record, directory: store.directory)
    }
    observer.record(RunEvent(time: summary.duration, task: nil, kind: .runFinished(summary)))
    eventLog?.close()
    await ProcessReactor.shared.reapLeftovers(grace: settings.grace)
    console.printSummary(summary, graph: graph)
    let problems = runReports.finish(summary)
    DiagnosticPrinter().print(problems)
    // An incomplete events file or report fails an otherwise good run: a CI step must not pass
    // with its log silently cut short.
    let incomplete = !problems.isEmpty || eventLog?.writeFailure != nil
    return incomplete && summary.succeeded ? ExitStatus.usage : summary.exitCode
  }

  /// Runner's environment plus the file's `env`: the base of every task's environment.
  package static func environment(of graph: TaskGraph) -> [String: String] {
    var environment = ProcessEnvironment.current
    for entry in graph.file.environment { environment[entry.name] = entry.value.render { _, _ in nil } }
    return environment
  }

  struct ScratchProblem: Error {
    var text: String
  }

  /// A private directory for the run's `$RUNNER_OUTPUT` files, under `$TMPDIR` (else /tmp).
  /// The error names the directory and the cause (errno read at once, before anything can
  /// change it).
  static func makeScratchDirectory() -> Result<String, ScratchProblem> {
    let base = ProcessEnvironment.current["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    var template = Array("\(base)/runner-XXXXXX".utf8CString)
    var code: Int32 = 0
    let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
      guard let path = mkdtemp(buffer.baseAddress!) else {
        code = errno
        return nil
      }
      return String(cString: path)
    }
    guard let made else {
      let variable = ProcessEnvironment.current["TMPDIR"] == nil ? "" : " (TMPDIR)"
      return .failure(
        ScratchProblem(
          text: "cannot create a temporary directory in '\(base)'\(variable): \(FileReader.describe(code))"))
    }
    return .success(made)
  }

  static func removeDirectory(_ path: String) {
    guard let directory = opendir(path) else { return }
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if name != "." && name != ".." { unlink(path + "/" + name) }
    }
    closedir(directory)
    rmdir(path)
  }
}
