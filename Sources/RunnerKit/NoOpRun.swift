import RunnerBasics
import RunnerCache
import RunnerEvents
import RunnerExecution
import RunnerModel
import RunnerProcess
import RunnerReporting
import Synchronization

/// Watches a run for what `NoOpRecord` needs: the order tasks finished in, and anything that
/// rules a record out (a gate, a service, a retry, a failure).
final class NoOpWatcher: RunObserver {
  struct Seen {
    var finished: [Int] = []
    var ruledOut = false
  }

  let seen = Mutex(Seen())

  func record(_ event: RunEvent) {
    guard let task = event.task else { return }
    seen.withLock { seen in
      switch event.kind {
      case .state(let state, let attempt, _):
        if state == .succeeded, attempt == 1 {
          seen.finished.append(task)
        } else if state.isFinal || attempt > 1 {
          seen.ruledOut = true
        }
      case .waiting, .retrying, .serviceReady, .serviceStopping:
        seen.ruledOut = true
      case .runStarted, .runFinished, .exited, .decided:
        break
      }
    }
  }

  /// What a task printed does not matter: the record vouches only for tasks that, while it
  /// holds, are up to date, and those print nothing.
  func output(task: Int, stream: OutputStreamKind, lines: OutputLines, time: Duration) {}
}

extension NoOpRecord {
  /// The record of a run in which every selected task succeeded, or nil. It vouches for each
  /// task whose record's files all have trusted stamps, in the directory it ran in: those are
  /// up to date now, whether they ran or not, while every stamp holds.
  static func make(
    _ watcher: NoOpWatcher, selection: GraphSelection, store: IncrementalStore, invocation: String, concurrency: Int,
    workingDirectory: (Int) -> String
  ) -> NoOpRecord? {
    let seen = watcher.seen.withLock { $0 }
    // A replay prints no warning: a run that had one is not replayed.
    guard !seen.ruledOut, store.warnings.isEmpty, seen.finished.count == selection.members.count else { return nil }
    let state = store.state
    let base = selection.graph.file.directory
    var tasks: [Task] = []
    tasks.reserveCapacity(seen.finished.count)
    var unvouched: [String] = []
    var files: [File] = []
    for index in seen.finished {
      let definition = selection.graph[index]
      guard definition.waitFor.isEmpty else { return nil }
      // The name is for the console only: masked, as a run shows it.
      let shown = store.secrets.masking(definition.name).escapingControlCharacters()
      switch definition.action {
      case .group:
        // Shown with the time it took, as a group always is.
        tasks.append(Task(record: nil, shown: shown))
      case .image:
        // Whether it is up to date also depends on its image in the cache.
        return nil
      case .shell:
        // The replay finds the files from the record alone: in the directory it ran in.
        guard let record = state.tasks[definition.name],
          record.workingDirectory(base: base) == workingDirectory(index),
          let recorded = NoOpRecord.files(of: record, base: base)
        else {
          unvouched.append(shown)
          continue
        }
        files += recorded
        tasks.append(Task(record: definition.name, shown: shown, fingerprint: record.fingerprint ?? ""))
      }
    }
    guard let digests = store.taskFileDigests else { return nil }
    return NoOpRecord(
      key: invocation, taskFile: digests, tasks: tasks, unvouched: unvouched, recent: recentFiles(files),
      concurrency: concurrency)
  }
}

/// The run of a `NoOpRecord`: when the record's key and every `stat` agree, every task is up to
/// date, and runner reports that through the reporters a full run makes (`RunReporters`): the
/// console, the GitHub form, the events file, each hearing what a full run's would of an up-to-date
/// task (ready, executing, succeeded "up to date"). Only a report file (`--junit`, `--trace`,
/// `--timeline`, a step summary) takes the full path: it places tasks in the graph.
package enum NoOpRun {
  /// Said after the summary's time, so a reader knows which way the run went.
  static let remark = "nothing changed since the last run"

  /// - Parameters:
  ///   - invocation: `NoOpRecord.invocationKey` of this run.
  ///   - taskFile: the task file's bytes.
  ///   - base: the task file's directory.
  ///   - stateDirectory: `.runner` next to the task file.
  /// - Returns: the exit code, or nil when the run must take the full path.
  package static func attempt(
    invocation: String, taskFile: [UInt8], base: String, stateDirectory: String, reports: ReportSettings,
    eventsPath: String?, wait: Bool, exitsAfterRun: Bool = false
  ) async -> Int32? {
    guard !reports.needsRecord else { return nil }
    let start = ContinuousClock.now
    let path = stateDirectory + "/state"
    // The end of the state log first (the record's key and the files changed last): a record
    // that does not apply, or a run after an edit to a file edited before, costs one small
    // read and a few stats.
    guard let stamp = CacheFileSystem.status(path)?.stamp,
      let end = CacheFileSystem.readSuffix(path, count: 16 << 10), let tail = NoOpRecord.tail(of: end),
      tail.key == invocation, tail.recent.allSatisfy({ $0.stamp.holds(at: $0.path) })
    else { return nil }
    // The task file: the same bytes, or (edited) the same YAML content, so the same tasks.
    let fileBytes = NoOpRecord.TaskFileDigests.bytes(taskFile)
    let sameBytes = tail.taskFile.bytes == fileBytes
    // The content (a pass over libyaml's events) is worked out beside the record's checks, which
    // do not depend on it; a content that differs stops them at once.
    final class Flag: Sendable { let raised = Atomic<Bool>(false) }
    let changed = Flag()
    let recorded = tail.taskFile.content
    let content: Task<Bool, Never>? =
      sameBytes
      ? nil
      : Task.detached(priority: .high) {
        let same = NoOpRecord.TaskFileDigests.content(taskFile) == recorded
        if !same { changed.raised.store(true, ordering: .relaxed) }
        return same
      }
    guard
      let lock = try? await RunLock.acquire(
        directory: stateDirectory, wait: wait,
        onWait: RunLock.announce(directory: stateDirectory))
    else { return nil }
    defer { withExtendedLifetime(lock) {} }
    // Another runner may have run while this one waited.
    guard stamp.holds(at: path), let bytes = try? CacheFileSystem.read(path) else { return nil }
    guard let (state, found) = NoOpRecord.read(log: bytes, path: path), var record = found, record.key == invocation,
      record.isComplete, record.taskFile == tail.taskFile,
      record.holds(in: state, base: base, unless: { changed.raised.load(ordering: .relaxed) })
    else { return nil }
    // Kept until runner exits: freeing ten thousand records costs a tenth of a no-op run.
    if exitsAfterRun { KeptUntilExit.keep(state) }
    if let content, await !content.value { return nil }
    if !sameBytes {
      // Edited without a change of content: the next run need not look at the content again.
      record.taskFile.bytes = fileBytes
      _ = record.append(to: path, ifStill: stamp)
    }
    // The names were masked when the record was made; nothing else said carries a secret.
    let tasks = RunReporters.Tasks(names: record.tasks.map(\.shown), selected: Array(record.tasks.indices))
    let reporters: RunReporters
    switch RunReporters.make(tasks, reports: reports, eventsPath: eventsPath, secrets: .none) {
    case .success(let made): reporters = made
    case .failure(let problem):
      DiagnosticPrinter().print([problem])
      return ExitStatus.usage
    }
    let observer = reporters.observer
    Terminal.holdWrites()
    defer { Terminal.stopHolding() }
    observer.record(
      RunEvent(
        time: ContinuousClock.now - start, kind: .runStarted(tasks: record.tasks.count, concurrency: record.concurrency)
      ))
    for (index, task) in record.tasks.enumerated() {
      let started = ContinuousClock.now
      for state in [TaskState.ready, .executing] {
        observer.record(RunEvent(time: started - start, task: index, kind: .state(state, attempt: 1, reason: nil)))
      }
      let ended = ContinuousClock.now
      let reason = task.record == nil ? formatDuration(ended - started) : Concluded.upToDate.words
      observer.record(RunEvent(time: ended - start, task: index, kind: .state(.succeeded, attempt: 1, reason: reason)))
    }
    var summary = RunSummary()
    summary.counts[.succeeded] = record.tasks.count
    summary.duration = ContinuousClock.now - start
    reporters.close(summary)
    let incomplete = reporters.summarize(summary, graph: nil, remark: remark)
    return incomplete ? ExitStatus.usage : ExitStatus.success
  }
}
