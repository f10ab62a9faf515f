import RunnerCache
import RunnerEvents
import RunnerModel
import Synchronization

/// What the parts of a task decided as one (`WholeTask`) have done so far in a run: the first
/// part's key and the output of every part, for the last part to record and cache.
final class WholeTaskRuns: Sendable {
  struct Run: Sendable {
    var prepared: CachingOperation.Prepared
    /// The first part's Action, for the remote cache.
    var remoteKey: ActionKey?
    /// Every part's output so far; nil once too long to keep.
    var log: [CacheEntry.LogChunk]?
    /// The remote result the whole is compared with when its last part ends (`--verify-cache`).
    var check: SpotCheckRun?
  }

  private let runs = Mutex<[String: Run]>([:])

  init() {}

  func begin(_ name: String, _ run: Run) { runs.withLock { $0[name] = run } }

  func append(_ name: String, log: [CacheEntry.LogChunk]?) {
    runs.withLock { runs in
      guard var run = runs[name] else { return }
      run.log = log.flatMap { log in run.log.map { $0 + log } }
      runs[name] = run
    }
  }

  func finish(_ name: String) -> Run? { runs.withLock { $0.removeValue(forKey: name) } }
}

/// The reason found for each task of a run, found once: a retry, or a task handed back from a
/// remote slot, keeps the first (the failed attempt dropped the record it was found from).
final class TaskDecisions: Sendable {
  private let reasons = Mutex<[Int: RunReason]>([:])

  init() {}

  /// The reason found for `task` before, or else `find()`'s, kept; `isNew` for the latter.
  func reason(of task: Int, _ find: () -> RunReason) -> (reason: RunReason, isNew: Bool) {
    if let known = reasons.withLock({ $0[task] }) { return (known, false) }
    let found = find()
    reasons.withLock { $0[task] = found }
    return (found, true)
  }
}

/// A task with `sources` split at its calls is up to date, restored or run as one: its first
/// part decides (with a key over the whole, `TaskFileExpander.keyWholeTasks`), and when it runs,
/// the last part records what all the parts did, under both names.
extension CachingOperation {
  /// Whether this part decides for its whole task.
  static func decides(_ task: TaskDefinition) -> Bool { task.wholeTask != nil && !task.laterParts.isEmpty }

  /// A first part's up-to-date or restored result stands for every part: the run ends them all.
  func standsForParts(_ result: any OperationResult, _ context: OperationContext) -> any OperationResult {
    guard Self.decides(context.task), var cached = result as? CachedResult else { return result }
    cached.decidesParts = true
    return cached
  }

  /// Keeps a record under the task's name and, for a part of a task decided as one, under the
  /// other name that reads it (the first part's record decides; the last part's is the task's).
  func keep(_ record: TaskRecord, _ context: OperationContext, storedInCache: Int64 = 0) {
    store.update(context.task.name, record, storedInCache: storedInCache)
    guard let whole = context.task.wholeTask else { return }
    store.update(context.task.name == whole.name ? whole.firstPart : whole.name, record)
  }

  /// The first part, not up to date: runs its commands and leaves the recording to the last part.
  func runFirstPart(_ prepared: Prepared, _ context: OperationContext, check: SpotCheckRun? = nil)
    async throws(TaskFailure) -> any OperationResult
  {
    guard let whole = context.task.wholeTask else { return try await inner.run(context) }
    // Until the last part records the whole, no record may call it up to date.
    store.update(context.task.name, nil)
    store.update(whole.name, nil)
    let (result, log) = try await capturing(context)
    parts.begin(
      whole.name,
      WholeTaskRuns.Run(prepared: prepared, remoteKey: remoteKey(prepared, context), log: log, check: check))
    return result
  }

  /// A later part: runs; the last one records the whole task, when its first part ran.
  func runLaterPart(_ whole: WholeTask, _ context: OperationContext) async throws(TaskFailure)
    -> any OperationResult
  {
    let (result, log) = try await capturing(context)
    try Self.checkOutputsExist(context.task, context)
    // A cleanup part (`always:`) runs after a part or a call failed: the whole did not succeed.
    if context.task.dependencies.contains(where: { context.inputs[$0.name] == nil }) {
      _ = parts.finish(whole.name)
    }
    parts.append(whole.name, log: log)
    guard context.task.name == whole.name, let begun = parts.finish(whole.name) else {
      return recordUncached(result, context)
    }
    let recorded = record(result, begun.prepared.fingerprint, log: begun.log, context, because: begun.prepared.reason)
    if let check = begun.check {
      try finishCheck(check, result, begun.prepared.fingerprint, context)
      return recorded
    }
    await storeRemote(begun.prepared, context, key: begun.remoteKey)
    return recorded
  }

  /// Runs the inner operation, keeping its output lines for the cache.
  func capturing(_ context: OperationContext) async throws(TaskFailure) -> (any OperationResult, [CacheEntry.LogChunk]?)
  {
    let capture = LogCapture(forward: context.output)
    var running = context
    running.output = TaskOutput(
      task: context.output.task, observer: capture, clock: context.output.clock, start: context.output.start,
      mask: context.output.mask)
    let result = try await inner.run(running)
    return (result, capture.lines)
  }
}
