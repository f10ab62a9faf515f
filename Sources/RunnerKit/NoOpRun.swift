import RunnerBasics
import RunnerCache
import RunnerExecution
import RunnerModel
import RunnerReporting
import Synchronization

/// Watches a run for what `NoOpRecord` needs: the order tasks finished in and the reason each
/// was shown with, and anything that rules a record out (output, a gate, a retry, a failure).
final class NoOpWatcher: RunObserver {
  struct Seen {
    var finished: [(task: Int, note: String?)] = []
    var ruledOut = false
  }

  let seen = Mutex(Seen())

  func record(_ event: RunEvent) {
    guard let task = event.task else { return }
    seen.withLock { seen in
      switch event.kind {
      case .state(let state, let attempt, let reason):
        if state == .succeeded, attempt == 1 {
          seen.finished.append((task, reason))
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

  func output(task: Int, stream: OutputStreamKind, lines: OutputLines, time: Duration) {
    seen.withLock { $0.ruledOut = true }
  }
}

extension NoOpRecord {
  /// The record of a run in which every selected task was up to date or a group, or nil.
  static func make(
    _ watcher: NoOpWatcher, selection: GraphSelection, store: IncrementalStore, invocation: String,
    taskFile: [UInt8], workingDirectory: (Int) -> String
  ) -> NoOpRecord? {
    let seen = watcher.seen.withLock { $0 }
    // A replay prints no warning: a run that had one is not replayed.
    guard !seen.ruledOut, store.warnings.isEmpty, seen.finished.count == selection.members.count,
      let stateStamp = CacheFileSystem.status(store.directory + "/state")?.stamp
    else { return nil }
    let state = store.state
    var tasks: [Task] = []
    tasks.reserveCapacity(seen.finished.count)
    for (index, note) in seen.finished {
      let definition = selection.graph[index]
      guard definition.waitFor.isEmpty else { return nil }
      switch definition.action {
      case .group:
        // Shown with the time it took, as a group always is.
        tasks.append(
          Task(
            name: store.secrets.masking(definition.name).escapingControlCharacters(), note: nil, walk: nil, files: []))
      case .image:
        // Whether it is up to date also depends on its image in the cache.
        return nil
      case .shell:
        guard note == Concluded.upToDate.words, let record = state.tasks[definition.name], let walk = record.walk
        else { return nil }
        let directory = workingDirectory(index)
        var files: [File] = []
        for file in record.sources + record.outputs {
          guard let stamp = file.stamp else { return nil }
          files.append(File(path: FilePath.resolve(file.path, in: directory), stamp: stamp))
        }
        // The name is for the console only: masked, as a run shows it.
        tasks.append(
          Task(
            name: store.secrets.masking(definition.name).escapingControlCharacters(), note: note, walk: walk,
            files: files))
      }
    }
    guard let digests = TaskFileDigests(of: taskFile) else { return nil }
    return NoOpRecord(key: key(invocation: invocation, state: stateStamp), taskFile: digests, tasks: tasks)
  }

  /// Writes the record of this run, or removes the last one when this run does not make one.
  static func save(_ record: NoOpRecord?, directory: String) {
    let path = directory + "/noop"
    guard let record else {
      // Voided where it starts, not unlinked: freeing a record of 10 000 tasks (4 MB) took
      // 20 ms of a run that edited one file. The next record replaces the file whole.
      CacheFileSystem.overwriteStart(path, with: "void")
      return
    }
    // A record that cannot be written is only a slower next run: any old one is keyed to the
    // state as it was, and a run that changed the state voids it.
    try? CacheFileSystem.writeAtomically(path, record.encoded(), durable: false)
  }
}

/// The run of a `NoOpRecord`: when the record's key and every `stat` agree, runner prints what
/// the full run would print (each task "up to date", the summary) and is done.
package enum NoOpRun {
  /// Said after the summary's time, so a reader knows which way the run went.
  static let remark = "nothing changed since the last run"

  /// - Parameters:
  ///   - invocation: `NoOpRecord.invocationKey` of this run.
  ///   - taskFile: the task file's bytes.
  ///   - stateDirectory: `.runner` next to the task file.
  /// - Returns: the exit code, or nil when the run must take the full path.
  package static func attempt(
    invocation: String, taskFile: [UInt8], stateDirectory: String, reports: ReportSettings, wait: Bool
  ) async -> Int32? {
    let start = ContinuousClock.now
    let path = stateDirectory + "/noop"
    // The head first (the key and the files changed last): a record that does not apply, or a
    // run after an edit to a file edited before, costs one small read and a few stats.
    guard let prefix = CacheFileSystem.readPrefix(path, count: 16 << 10), let head = NoOpRecord.head(of: prefix),
      let state = CacheFileSystem.status(stateDirectory + "/state")?.stamp,
      head.key == NoOpRecord.key(invocation: invocation, state: state),
      head.recent.allSatisfy({ $0.stamp.holds(at: $0.path) })
    else { return nil }
    // The task file: the same bytes, or (edited) the same YAML content, so the same tasks.
    let fileBytes = NoOpRecord.TaskFileDigests.bytes(taskFile)
    let sameBytes = head.taskFile.bytes == fileBytes
    // The content (a pass over libyaml's events) is worked out beside the record's checks, which
    // do not depend on it; a content that differs stops them at once.
    final class Flag: Sendable { let raised = Atomic<Bool>(false) }
    let changed = Flag()
    let recorded = head.taskFile.content
    let content: Task<Bool, Never>? =
      sameBytes
      ? nil
      : Task.detached(priority: .high) {
        let same = NoOpRecord.TaskFileDigests.content(taskFile) == recorded
        if !same { changed.raised.store(true, ordering: .relaxed) }
        return same
      }
    let key = head.key
    guard
      let lock = try? await RunLock.acquire(
        directory: stateDirectory, wait: wait,
        onWait: RunLock.announce(directory: stateDirectory))
    else { return nil }
    defer { withExtendedLifetime(lock) {} }
    // Another runner may have run while this one waited.
    guard state.holds(at: stateDirectory + "/state"),
      let bytes = try? CacheFileSystem.read(path), var record = NoOpRecord(decoding: bytes), record.key == key,
      record.taskFile == head.taskFile, record.holds(unless: { changed.raised.load(ordering: .relaxed) })
    else { return nil }
    if let content, await !content.value { return nil }
    if !sameBytes {
      // Edited without a change of content: the next run need not look at the content again.
      record.taskFile.bytes = fileBytes
      NoOpRecord.save(record, directory: stateDirectory)
    }
    let console = ConsoleReporter(
      names: record.tasks.map(\.name), selected: Array(record.tasks.indices),
      useColor: Terminal.colorEnabled(for: 1),
      statusArea: reports.ci == .none && ConsoleReporter.wantsStatusArea(), mode: reports.output)
    Terminal.holdWrites()
    defer { Terminal.stopHolding() }
    for (index, task) in record.tasks.enumerated() {
      let started = ContinuousClock.now
      console.record(RunEvent(time: started - start, task: index, kind: .state(.executing, attempt: 1, reason: nil)))
      let ended = ContinuousClock.now
      let reason = task.note ?? formatDuration(ended - started)
      console.record(RunEvent(time: ended - start, task: index, kind: .state(.succeeded, attempt: 1, reason: reason)))
    }
    var summary = RunSummary()
    summary.counts[.succeeded] = record.tasks.count
    summary.duration = ContinuousClock.now - start
    console.printSummary(summary, graph: nil, remark: remark)
    return ExitStatus.success
  }
}
