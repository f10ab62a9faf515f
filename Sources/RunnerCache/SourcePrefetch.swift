import RunnerModel
import Synchronization

/// Checks tasks' sources ahead of the scheduler, on another core, while the run has changed no
/// file yet. In a run where everything is up to date, the scheduler's thread then compares
/// digests while this one does the `stat`s (ninja's no-op is all `stat`s, on one thread).
///
/// A check is only handed out while nothing of this run may have changed a file (`changed` is
/// still false: no process started, no task restored or found not up to date): until then the
/// files are as the check saw them. The first such change stops the prefetch for good, and
/// every later task checks its own.
final class SourcePrefetch: Sendable {
  /// A task to check: its index, definition, working directory and dependencies' names.
  struct Item: Sendable {
    var index: Int
    var task: TaskDefinition
    var workingDirectory: String
    var dependencies: [String]
  }

  private struct Table {
    var checks: [Int: SourceCheck] = [:]
    /// Tasks the scheduler reached first: the prefetch skips them.
    var claimed: Set<Int> = []
    var stopped = false
  }

  private let table = Mutex(Table())
  private let changedFlag = Atomic<Bool>(false)
  /// The records' files as compared before the task file was parsed, if they were.
  let checks: RecordChecks?

  init(checks: RecordChecks? = nil) {
    self.checks = checks
  }

  /// Whether a task of this run has started to change files.
  var changed: Bool { changedFlag.load(ordering: .acquiring) }

  /// A task is about to run or restore: no check made so far may be handed out any more.
  func noteChange() {
    changedFlag.store(true, ordering: .releasing)
    checks?.stop()
  }

  func stop() {
    table.withLock { $0.stopped = true }
    checks?.stop()
  }

  /// Checks `items` in order on a background thread, reading records from `store`.
  func start(_ items: [Item], store: IncrementalStore) {
    Task.detached(priority: .high) { [self] in
      for item in items {
        guard !changed else { break }
        let wanted = table.withLock { table -> Bool in
          !table.stopped && table.claimed.insert(item.index).inserted
        }
        guard wanted else {
          if table.withLock({ $0.stopped }) { break }
          continue
        }
        let previous = store.record(item.task.name)
        var check = SourceCheck(
          task: item.task, workingDirectory: item.workingDirectory, previous: previous, outputs: true,
          verdict: checks?.take(item.task.name), disk: store.disk)
        check.record = previous
        if previous != nil {
          check.expected = FingerprintExpectation(
            task: item.task, workingDirectory: item.workingDirectory, check: check, dependencies: item.dependencies,
            store: store)
        }
        table.withLock { $0.checks[item.index] = check }
      }
    }
  }

  /// The prefetched check of a task, if there is one that still holds; otherwise claims the
  /// task so the prefetch does not check it too.
  func take(_ index: Int) -> SourceCheck? {
    let check = table.withLock { table -> SourceCheck? in
      table.claimed.insert(index)
      return table.checks.removeValue(forKey: index)
    }
    return changed ? nil : check
  }
}
