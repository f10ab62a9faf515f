import Glibc
import Imaging
import RunnerBasics
import RunnerCache
import RunnerEvents
import RunnerModel
import RunnerProcess
import RunnerRemoteAPI

/// Wraps a task's operation with incremental behaviour: skip it when up to date, restore it
/// from the local cache, or run it and record (and cache) what it did.
///
/// A cacheable task (one with `sources`, or an image task that loads no URL) computes its
/// fingerprint first. Any other task just runs; its output values are still recorded, so a
/// dry run can predict its dependents' fingerprints.
struct CachingOperation: TaskOperation {
  let inner: any TaskOperation
  let store: IncrementalStore
  /// The remote cache and executor, each when named.
  let remote: RemoteSessions
  let cacheable: Bool
  /// What the parts of tasks decided as one did so far in this run.
  let parts: WholeTaskRuns
  /// The reasons found so far in this run.
  let decisions: TaskDecisions
  /// What traced tasks (`sources: auto`) were seen to do.
  let traces: TaskTraces
  /// The fingerprint and record worked out by `conclude`, when it could not finish the task.
  var prepared: Prepared?

  struct Prepared: Sendable {
    var fingerprint: Fingerprint
    var previous: TaskRecord?
    var checked: SourceCheck?
    /// Why the task is not up to date, once `conclude` or `run` found it so.
    var reason: RunReason?
  }

  init(
    inner: any TaskOperation, store: IncrementalStore, remote: RemoteSessions = RemoteSessions(), cacheable: Bool,
    parts: WholeTaskRuns, decisions: TaskDecisions, traces: TaskTraces = TaskTraces()
  ) {
    self.traces = traces
    self.inner = inner
    self.store = store
    self.remote = remote
    self.cacheable = cacheable
    self.parts = parts
    self.decisions = decisions
  }

  /// A shell task that is up to date finishes on the scheduler's thread. Image tasks (their
  /// image is decoded from the cache) and forced runs always go on to `run`.
  func conclude(_ context: OperationContext) -> Conclusion {
    guard cacheable, !store.settings.forces(context.task.index), case .shell = context.task.action else {
      return .run(self)
    }
    if let result = settled(context) { return .finished(result) }
    var prepared = prepare(context)
    switch decide(prepared, context) {
    case .upToDate(let result):
      // Up to date, but an earlier run's upload of it was cut short: `run` makes it.
      if !uploadPending(prepared.fingerprint.value) { return .finished(standsForParts(result, context)) }
    case .stale(let reason):
      prepared.reason = reason
    }
    var next = self
    next.prepared = prepared
    return .run(next)
  }

  /// What the engine's judgement (`IncrementalStore.judge`) makes of a task: its recorded
  /// result, or why it is not up to date.
  enum Decided {
    case upToDate(any OperationResult)
    case stale(RunReason)
  }

  func decide(_ prepared: Prepared, _ context: OperationContext) -> Decided {
    let judgement = store.judge(
      context.task, record: prepared.previous, fingerprint: prepared.fingerprint,
      directory: context.workingDirectory, outputs: prepared.checked?.outputs)
    switch judgement {
    case .stale(let reason):
      return .stale(reason)
    case .upToDate(let outputs):
      // Only a record can be up to date; an image that no longer decodes is not.
      guard let previous = prepared.previous,
        let result = upToDate(previous, prepared.fingerprint, outputs: outputs, context)
      else { return .stale(.imageNotCached) }
      return .upToDate(result)
    }
  }

  /// The task's fingerprint and last record (from what the store worked out ahead while it
  /// still holds).
  func prepare(_ context: OperationContext) -> Prepared {
    let (fingerprint, previous, checked) = store.prepare(
      context.task, index: context.task.index, workingDirectory: context.workingDirectory,
      dependencies: context.inputs.map { Fingerprint.contribution(of: $0.value, name: $0.key) }
    ) { name, key in
      (context.inputs[name] as? any OutputProviding)?.outputs[key]
    }
    return Prepared(fingerprint: fingerprint, previous: previous, checked: checked)
  }

  /// Records what a task that is not cacheable handed on, so a dry run can predict its
  /// dependents' fingerprints. Its declared output files count in what it hands on, as a
  /// cacheable task's do: a task that fetches new data into them re-runs its dependents.
  func recordUncached(_ result: any OperationResult, _ context: OperationContext) -> any OperationResult {
    let task = context.task
    let patterns = Fingerprint.outputPatterns(of: task)
    guard !patterns.isEmpty else { return record(handingOn: result, digest: nil, context) }
    let paths = SourceGlob.expand(patterns, in: context.workingDirectory)
    let files = Fingerprint.hashFiles(paths, in: context.workingDirectory, previous: [], disk: store.disk)
    let values = (result as? any OutputProviding)?.outputs ?? [:]
    let image = (result as? any ImageProviding)?.image
    let digest = Fingerprint.outputDigest(values: values, files: files, pixels: image.map(Fingerprint.pixelDigest))
    return record(
      handingOn: CachedResult.make(
        outputs: values, image: image, fingerprint: nil, outputDigest: digest, concluded: nil),
      digest: digest, context)
  }

  private func record(handingOn result: any OperationResult, digest: String?, _ context: OperationContext)
    -> any OperationResult
  {
    let task = context.task
    let outputDigest = digest ?? Fingerprint.contribution(of: result, name: task.name).outputDigest
    // The same record again (a task handing on the same values) leaves the state as it is.
    if let old = store.record(task.name), old.fingerprint == nil, old.outputDigest == outputDigest {
      return result
    }
    let values = ((result as? any OutputProviding)?.outputs ?? [:]).sorted { $0.key < $1.key }
    store.update(
      task.name,
      TaskRecord(
        fingerprint: nil, operation: "", directory: "", environment: "", dependencies: "", sources: [], outputs: [],
        values: values.map { ($0.key, $0.value) }, outputDigest: outputDigest))
    return result
  }

  func run(_ context: OperationContext) async throws(TaskFailure) -> any OperationResult {
    let task = context.task
    guard cacheable else {
      // It runs: it may write files, so nothing worked out ahead may be used from now on.
      store.noteChange()
      if let whole = task.wholeTask { return try await runLaterPart(whole, context) }
      let result = try await inner.run(context)
      try Self.checkOutputsExist(task, context)
      return recordUncached(result, context)
    }
    // `conclude` already judged the task, with this fingerprint: not up to date (with the
    // reason), or up to date with an upload to make. A retry works it out again: the failed
    // attempt may have changed files.
    let concluded = context.attempt == 1 ? prepared : nil
    var prepared = concluded ?? prepare(context)
    let fingerprint = prepared.fingerprint
    var found = concluded?.reason
    if !store.settings.forces(task.index), found == nil {
      switch decide(prepared, context) {
      case .upToDate(let result):
        // An earlier run's upload of it cut short is made now.
        if uploadPending(fingerprint.value) { await storeRemote(prepared, context) }
        return standsForParts(result, context)
      case .stale(let reason):
        found = reason
      }
    }
    // Not up to date: restored, run here or remotely, it writes files, so nothing worked out
    // ahead may be used from now on. (Every process the run starts notes it too:
    // `OperationFactory`'s processes.)
    store.noteChange()
    // Found once a run: a retry, or a hand-back from a remote slot, keeps the first reason.
    let (reason, isNew) = decisions.reason(of: task.index) {
      if store.settings.force { return .forced }
      if store.settings.forces(task.index) { return .serviceRestarted }
      // Judged above whenever the task is not forced.
      return found ?? .noRecord
    }
    prepared.reason = reason
    // A task with a depfile no record has read is looked up by the files its path set names.
    var check: SpotCheckRun?
    var handBack = false
    if !store.settings.forces(task.index), let lookup = await lookupKey(prepared, context) {
      if store.settings.useCache, let result = restore(lookup.fingerprint, context, because: reason) {
        if isNew { context.output.recordDecision(.restore(because: reason)) }
        return standsForParts(result, context)
      }
      switch await restoreRemote(lookup, context) {
      case .restored(let result):
        if isNew { context.output.recordDecision(.restore(because: reason)) }
        return standsForParts(result, context)
      case .check(let picked): check = picked
      case .handBack: handBack = true
      case nil: break
      }
    }
    // A check's download goes when the run ends, whichever way (a whole task's with its last part).
    defer { if let check, !Self.decides(task) { CacheFileSystem.removeTree(check.scratch) } }
    if Task.isCancelled { throw .cancelled }
    if isNew { context.output.recordDecision(.run(because: reason)) }
    if handBack { throw .runLocally("picked for a spot check of the remote cache") }
    if context.remoteSlot { return try await executeRemotely(prepared, context) }
    if Self.decides(task) { return try await runFirstPart(prepared, context, check: check) }
    let capture = LogCapture(forward: context.output)
    var running = context
    running.output = TaskOutput(
      task: context.output.task, observer: capture, clock: context.output.clock, start: context.output.start,
      mask: context.output.mask)
    let result: any OperationResult
    // What changes from here on, the run cannot vouch it read (`discovering`).
    let before = task.discoversInputs ? store.disk.now() : nil
    do {
      result = try await inner.run(running)
      try Self.checkOutputsExist(task, context)
      // Recorded and stored under the key of the files its run was found to read.
      guard let found = try discovering(fingerprint, context, before: before) else {
        // Traced, but not whole: never recorded (nor cached) as if it were.
        store.update(task.name, nil)
        if let check { try finishCheck(check, result, nil, context) }
        return recordUncached(result, context)
      }
      prepared.fingerprint = found
    } catch {
      store.update(task.name, nil)
      throw error
    }
    let recorded = record(result, prepared.fingerprint, log: capture.lines, context, because: reason)
    // A spot-checked result is in the remote cache already: compared, not replaced.
    if let check {
      try finishCheck(check, result, prepared.fingerprint, context)
    } else {
      await storeRemote(prepared, context)
    }
    await storePathSet(prepared, context)
    return recorded
  }

  /// The record of a run or a restore: how it ended and why, with the digests that let a
  /// later run name the variable or dependency that changed.
  func decided(_ record: TaskRecord, _ fingerprint: Fingerprint, _ outcome: Outcome, because reason: RunReason?)
    -> TaskRecord
  {
    var record = record
    record.outcome = outcome
    record.why = reason?.description ?? ""
    record.variables = InputDigests.variables(fingerprint.environmentValues)
    record.inputs = InputDigests.dependencies(fingerprint.dependencyList)
    return record
  }

  /// A task that succeeded without creating a declared output (a path, not a glob) fails,
  /// naming it, as Bazel does: otherwise the next run would call it up to date.
  static func checkOutputsExist(_ task: TaskDefinition, _ context: OperationContext) throws(TaskFailure) {
    for pattern in task.outputs where !pattern.contains(where: { "*?[{!".contains($0) }) {
      let full = FilePath.resolve(pattern, in: context.workingDirectory)
      // Not followed: a link the task made is an output even if it points nowhere yet.
      if CacheFileSystem.status(full, follow: false) == nil {
        throw .message("declared output '\(pattern)' was not created")
      }
    }
  }

  /// The recorded result of a task judged up to date, its outputs as they are now: the
  /// record refreshed where their stamps or the sources' changed, and an image task's image
  /// from the cache (nil when it no longer decodes).
  func upToDate(
    _ previous: TaskRecord, _ fingerprint: Fingerprint, outputs: [FileRecord], _ context: OperationContext
  ) -> (any OperationResult)? {
    var image: PixelImage?
    if case .image = context.task.action {
      // The image itself lives only in the cache entry.
      guard store.settings.useCache, let entry = try? store.cache.load(fingerprint.value), let png = entry.image,
        let decoded = try? ImageCodec.decode(png, name: "cached image of '\(context.task.name)'")
      else { return nil }
      image = decoded
    }
    if outputs != previous.outputs || fingerprint.sources != previous.sources || fingerprint.walk != previous.walk
      || fingerprint.discovered != previous.discovered
    {
      var refreshed = previous
      refreshed.outputs = outputs
      refreshed.sources = fingerprint.sources
      refreshed.discovered = fingerprint.discovered
      refreshed.walk = fingerprint.walk
      keep(refreshed, context)
    }
    return CachedResult.make(
      outputs: Dictionary(previous.values, uniquingKeysWith: { $1 }), image: image,
      fingerprint: standIn(fingerprint, context), outputDigest: previous.outputDigest, concluded: .upToDate)
  }

  /// What stands in for this task in its dependents' keys (`Fingerprint.standIn`).
  func standIn(_ fingerprint: Fingerprint, _ context: OperationContext) -> String? {
    Fingerprint.standIn(
      fingerprint: fingerprint.value, dependencies: fingerprint.dependencies,
      declaresOutputs: Fingerprint.declaresOutputs(context.task))
  }
}
