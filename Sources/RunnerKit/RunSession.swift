import Glibc
import RunnerBasics
import RunnerCache
import RunnerEvents
import RunnerExecution
import RunnerModel
import RunnerProcess
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
    // What runner shows and writes names each node with its secrets masked.
    let shown = selection.namesMasked(by: settings.secrets)
    let names = shown.graph.tasks.map(\.name)
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
    // A run that may leave a record of nothing having run (`NoOpRecord`): no report file.
    let noOpWatcher = settings.caching.noOpInvocation != nil && !reports.needsRecord ? NoOpWatcher() : nil
    let tasks = RunReporters.Tasks(
      names: names, selected: selection.members, selection: shown,
      interactive: Set(selection.members.filter { graph[$0].isInteractive }))
    let reporters: RunReporters
    switch RunReporters.make(
      tasks, reports: reports, eventsPath: settings.eventsPath, secrets: settings.secrets, spoolDirectory: scratch,
      extra: noOpWatcher.map { [$0] } ?? [])
    {
    case .success(let made): reporters = made
    case .failure(let problem):
      DiagnosticPrinter().print([problem])
      return ExitStatus.usage
    }
    let environment = Self.environment(of: graph)
    var taskEnvironment = environment
    var store: IncrementalStore?
    var locks: [RunLock] = []
    if settings.caching.enabled {
      let directory = CacheSettings.stateDirectory(for: graph.file)
      do {
        locks = try await RunLock.acquire(
          directories: Self.lockedDirectories(of: graph.file), wait: settings.caching.wait)
      } catch {
        DiagnosticPrinter().print([Diagnostic(.error, "\(error)")])
        return ExitStatus.usage
      }
      // A runner killed while saving the state left a temporary file beside it.
      CacheFileSystem.removeOrphanedTemporaries(in: directory, clock: settings.clock)
      store = IncrementalStore(
        directory: directory, settings: settings.caching, environment: environment,
        keyed: Fingerprint.keyedVariables(of: graph.file), secretNames: Set(graph.file.secretNames),
        secrets: settings.secrets, clock: settings.clock)
      // A runner a task starts here fails at once rather than wait for this lock forever.
      if !locks.isEmpty {
        let held = environment[RunLock.variable].map { $0 + ":" } ?? ""
        taskEnvironment[RunLock.variable] = held + locks.map { RunLock.canonical($0.path) }.joined(separator: ":")
      }
    }
    defer { withExtendedLifetime(locks) {} }
    let observer = reporters.observer
    let scheduler = Scheduler(
      selection: selection, settings: settings, observer: observer, scratchDirectory: scratch,
      baseEnvironment: taskEnvironment,
      factory: OperationFactory(
        store: store, remote: settings.remote, fetcher: Self.fetcher, answers: settings.answers,
        traces: settings.traces)
    )
    defer { settings.jobserver?.slots.close() }
    let run = Task { await scheduler.run() }
    let cleanups = selection.members.contains { graph[$0].always }
    let watcher = SignalWatcher(
      onFirst: { _ in
        run.cancel()
        reporters.reports.interrupt()
        // Otherwise a first Ctrl-C while a cleanup runs seems to do nothing.
        if cleanups {
          Terminal.write("runner: stopping; cleanup tasks still run (interrupt again to cancel them)\n", to: 2)
        }
      },
      onSecond: {
        scheduler.cleanups.abandon()
        ProcessReactor.shared.killAllNow()
      },
      onSuspend: {
        reporters.view?.suspend()
        ProcessReactor.shared.suspendAll()
        reporters.view?.resume()
      })
    // Cancelling the caller (`--watch`, when a change comes in) stops the run too.
    var summary = await withTaskCancellationHandler {
      await run.value
    } onCancel: {
      run.cancel()
    }
    summary.interruption = watcher.firstSignal ?? summary.interruption
    if settings.keepsUntilExit { KeptUntilExit.keep(Kept(scheduler: scheduler, store: store, observer: observer)) }
    if let store {
      // The state log ends with the record of this run if every task succeeded; otherwise no
      // record of an earlier run may stand.
      let record = noOpWatcher.flatMap { watcher -> NoOpRecord? in
        guard summary.succeeded, let invocation = settings.caching.noOpInvocation
        else { return nil }
        return NoOpRecord.make(
          watcher, selection: selection, store: store, invocation: invocation, concurrency: settings.concurrency,
          workingDirectory: scheduler.workingDirectory(of:))
      }
      store.finish(noOp: record)
    }
    reporters.close(summary)
    await ProcessReactor.shared.reapLeftovers(grace: settings.grace)
    summary = summary.masked(by: settings.secrets)
    // An incomplete events file or report fails an otherwise good run: a CI step must not pass
    // with its log silently cut short.
    let incomplete = reporters.summarize(summary, graph: shown.graph)
    await TraceExport.send(reporters.reports, summary, trace: settings.trace, selection: selection)
    // A signal that came once the run had ended (while it saved, reaped or printed) still ends
    // runner: `--watch` stops on it rather than watch on with the signal spent.
    if let late = watcher.close(), summary.interruption == nil { return 128 + late }
    return incomplete && summary.succeeded ? ExitStatus.usage : summary.exitCode
  }

  /// The state directories a run locks: its own, and that of every file it includes from
  /// another directory, whose tasks it runs too. A runner started there takes that lock, so
  /// one directory's tasks have one runner at a time, whichever file a run started from.
  static func lockedDirectories(of file: TaskFile) -> [String] {
    var directories = [CacheSettings.stateDirectory(for: file)]
    for scope in file.scopes.dropFirst() {
      directories.append((scope.fileDirectory.isEmpty ? "." : scope.fileDirectory) + "/.runner")
    }
    return directories
  }

  /// Runner's environment plus the file's `env`: the base of every task's environment.
  package static func environment(of graph: TaskGraph) -> [String: String] {
    var environment = ProcessEnvironment.current
    // Where the remote cache's signing key is: runner's alone, not its tasks'.
    environment["RUNNER_REMOTE_SIGNING_KEY"] = nil
    for entry in graph.file.environment {
      environment[entry.name] = entry.origin == .unset ? nil : entry.value.render { _, _ in nil }
    }
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

/// What a run made, kept until runner exits (`RunSession.keepsUntilExit`).
private struct Kept: Sendable {
  let scheduler: Scheduler
  let store: IncrementalStore?
  let observer: ObserverList
}
