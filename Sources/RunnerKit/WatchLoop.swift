import RunnerBasics
import RunnerCache
import RunnerExecution
import RunnerModel
import RunnerProcess
import Synchronization

/// `runner --watch`: the first run, then, for each burst of changes to the watched tasks'
/// sources, a run of exactly the tasks the changed files touch and what depends on them
/// (`AffectedTasks`, as `--affected` chooses), until SIGINT or SIGTERM.
///
/// Tasks without `sources` run in the first run and are said to be unwatched. Changes to a
/// task's declared `outputs`, runner's temporary files, `.git` and `.runner` never trigger.
/// An edit of the task file reloads it (a file that no longer loads keeps the old one, said).
/// A change during a run stops it, and the next run takes its tasks along.
/// The lock is taken per run, so another runner waits only while a run is in progress.
///
/// Services stay up across runs (`ServicePool`): a run that no longer needs one parks it, the
/// next adopts it. A service the change touches (its sources, or what it depends on) is
/// stopped before the run, which starts it again; all are stopped when the task file reloads
/// and when the watch ends.
struct WatchLoop {
  let runner: Runner
  var selection: GraphSelection
  let caching: CacheSettings
  let services = ServicePool()

  /// `RUNNER_WATCH_DEBOUNCE` (a duration; default 200ms): how long the files must stay quiet.
  static var debounce: Duration {
    ProcessEnvironment.current["RUNNER_WATCH_DEBOUNCE"].flatMap(RunnerModel.parseDuration) ?? .milliseconds(200)
  }

  func run() async -> Int32 {
    let code = await watch()
    await services.stop()
    // What the services left behind in their groups, as at the end of a run.
    await ProcessReactor.shared.reapLeftovers(grace: runner.options.grace)
    return code
  }

  private func watch() async -> Int32 {
    let stop = Mutex<Int32?>(nil)
    // Between runs this watcher hears SIGINT and SIGTERM; during one, the run's own does (a
    // second watcher of the same signal would lose it when the run's goes), and the run's exit
    // code says it.
    var signals: SignalWatcher?
    var selection = selection
    if let code = Self.stopCode(await runner.session(selection, caching: caching, services: services).run()) {
      return code
    }
    signals = Self.signalWatcher { signal in stop.withLock { $0 = signal } }
    // The task file's folder too (alone), so that an edit of it runs again even when no task
    // has sources.
    let files = [selection.graph.file.path] + selection.graph.file.otherFiles
    let folders = files.map { FilePath.canonical(TaskFileLoader.directory(of: $0)) }
    guard let watcher = SourceWatcher(roots: roots(selection), alone: folders) else {
      DiagnosticPrinter().print([Diagnostic(.error, "cannot watch the sources: inotify is not available")])
      return ExitStatus.usage
    }
    announce(selection, folders: watcher.watchedDirectories)
    let taskFile = FilePath.canonical(selection.graph.file.path)
    /// Changes that came in during a run, which was stopped for them; and what that run was for.
    var arrived: [String]?
    var stale: [Int] = []
    while true {
      let paths: [String]
      if let during = arrived {
        paths = during
        arrived = nil
      } else {
        guard let changed = await watcher.changes(quiet: Self.debounce, stop: { stop.withLock { $0 != nil } }) else {
          break
        }
        paths = changed
      }
      var targets: [Int]
      if paths.contains(where: { FilePath.canonical($0) == taskFile }) {
        // A file that no longer loads: its errors are printed; nothing runs until it does.
        guard let reloaded = runner.reload() else {
          Terminal.write("\nthe task file has errors (above): nothing runs until the next save\n", to: 1)
          continue
        }
        selection = reloaded
        Terminal.write("\nthe task file changed: running everything it selects\n", to: 1)
        await services.stop()
        if stop.withLock({ $0 != nil }) { break }
        targets = selection.targets
      } else {
        let relevant = relevant(paths, in: selection)
        let chosen = AffectedTasks(selection: selection, changed: relevant, base: "")
        let graph = selection.graph
        targets = selection.members.filter { chosen.reasons[$0] != nil && graph[$0].action.kindName != "group" }
        if !targets.isEmpty {
          let shown = targets.map { "\(graph[$0].name) (\(chosen.reasons[$0]!))" }.joined(separator: ", ")
          Terminal.write("\nchanged: running \(shown)\n", to: 1)
        }
        targets = Array(Set(targets + stale)).sorted()
        // A kept service the change touches, through its own sources or what it depends on
        // (a rebuilt binary, a restarted database), starts again.
        let restart = chosen.reasons.keys.filter { graph[$0].isService }.map { graph[$0].name }
          .filter(services.names.contains).sorted()
        if !restart.isEmpty {
          Terminal.write("restarting \(restart.joined(separator: ", ")): the change touches them\n", to: 1)
          await services.stop(restart)
          if stop.withLock({ $0 != nil }) { break }
        }
      }
      guard !targets.isEmpty else { continue }
      // A signal since the last run (or one on its way, which closing hands on) ends the watch
      // before another run starts; from here on the run's own watcher takes it.
      if signals?.close() != nil || stop.withLock({ $0 != nil }) { break }
      signals = nil
      let run = GraphSelection(graph: selection.graph, targets: targets)
      var caching = caching
      caching.forced = fresh(run)
      let (code, during) = await runWatching(run, of: selection, watcher: watcher, caching: caching)
      if let code = Self.stopCode(code) { return code }
      signals = Self.signalWatcher { signal in stop.withLock { $0 = signal } }
      (arrived, stale) = during.map { ($0, targets) } ?? (nil, [])
    }
    withExtendedLifetime(signals) {}
    return 128 + (stop.withLock { $0 } ?? 2)
  }

  /// The tasks of `run` that depend, directly or not, on a service the run starts afresh
  /// (restarted, or ended meanwhile): they run again, up to date or not.
  func fresh(_ run: GraphSelection) -> Set<Int> {
    let graph = run.graph
    let kept = Set(services.names)
    var forced = Set<Int>()
    var started = Set(run.members.filter { graph[$0].isService && !kept.contains(graph[$0].name) })
    for task in run.stages.joined() where graph.dependencies[task].contains(where: started.contains) {
      started.insert(task)
      forced.insert(task)
    }
    return forced
  }

  /// Between runs: SIGINT and SIGTERM end the watch; Ctrl-Z stops kept services with runner.
  static func signalWatcher(_ onStop: @escaping @Sendable (Int32) -> Void) -> SignalWatcher {
    SignalWatcher(
      onFirst: onStop, onSecond: {},
      onSuspend: { ProcessReactor.shared.suspendAll() })
  }

  /// A run's exit code when a signal ended it (the watch ends with it).
  static func stopCode(_ code: Int32) -> Int32? { code > 128 ? code : nil }

  /// Runs `selection` while watching: a change that comes in meanwhile stops the run (its
  /// tasks are stale) and is handed back, to run again with them.
  func runWatching(
    _ selection: GraphSelection, of watched: GraphSelection, watcher: SourceWatcher, caching: CacheSettings
  ) async -> (Int32, [String]?) {
    let done = Mutex(false)
    let session = runner.session(selection, caching: caching, services: services)
    let running = Task {
      let code = await session.run()
      done.withLock { $0 = true }
      return code
    }
    var during: [String]?
    // What the run writes itself (its outputs, temporaries) is no reason to stop it.
    while let paths = await watcher.changes(quiet: Self.debounce, stop: { done.withLock { $0 } }) {
      // Only a change that touches a watched task's sources or the task file (what a service
      // writes as it starts, a log, does not).
      let relevant = relevant(paths, in: watched)
      let chosen = AffectedTasks(selection: watched, changed: relevant, base: "")
      let taskFile = FilePath.canonical(watched.graph.file.path)
      guard !chosen.reasons.isEmpty || relevant.contains(where: { FilePath.canonical($0) == taskFile }) else {
        continue
      }
      during = relevant
      Terminal.write("\na change came in: stopping this run to start again\n", to: 1)
      running.cancel()
      break
    }
    let code = await running.value
    return (code, during)
  }

  /// The folders to watch: each watched task's directory, and the fixed start of a pattern
  /// that leaves it (`../lib/**`, `/etc/app.conf`).
  func roots(_ selection: GraphSelection) -> [String] {
    let graph = selection.graph
    let base = FilePath.canonical(graph.file.directory)
    var roots: [String] = []
    for task in selection.members where !graph[task].sources.isEmpty {
      let directory = AffectedTasks.directory(of: graph[task], root: base)
      roots.append(directory)
      for pattern in graph[task].sources where pattern.hasPrefix("/") || pattern.hasPrefix("..") {
        let literal = pattern.split(separator: "/").prefix { !$0.contains(where: { "*?[{".contains($0) }) }
        let start = (pattern.hasPrefix("/") ? "/" : directory + "/") + literal.dropLast().joined(separator: "/")
        roots.append(FilePath.canonical(start))
      }
    }
    return roots
  }

  /// The changed paths that may trigger a run: not a task's declared outputs, not runner's
  /// temporary files. The outputs' directories are resolved once per batch, not per path.
  func relevant(_ paths: [String], in selection: GraphSelection) -> [String] {
    let graph = selection.graph
    let root = FilePath.canonical(graph.file.directory)
    let outputs = selection.members.filter { !graph[$0].outputs.isEmpty }.map { task in
      (patterns: graph[task].outputs, base: AffectedTasks.directory(of: graph[task], root: root))
    }
    return paths.filter { path in
      !path.contains(FilePath.temporaryMark)
        && !outputs.contains { SourceGlob.covers($0.patterns, path: path, base: $0.base) }
    }
  }

  func announce(_ selection: GraphSelection, folders: Int) {
    let graph = selection.graph
    let watched = selection.members.filter { !graph[$0].sources.isEmpty }
    let unwatched = selection.members.filter { graph[$0].sources.isEmpty && graph[$0].action.kindName != "group" }
    guard !watched.isEmpty else {
      Terminal.write(
        "\nno task here has sources: watching the task file only (an edit of it runs everything again). "
          + "Ctrl-C to stop.\n", to: 1)
      return
    }
    var text = "\nwatching the sources of \(watched.count) task(s) in \(folders) folder(s)"
    if !unwatched.isEmpty {
      text +=
        "; without sources (run again only after a task they depend on): "
        + unwatched.map { graph[$0].name }.joined(separator: ", ")
    }
    Terminal.write(text + ". Ctrl-C to stop.\n", to: 1)
  }
}
