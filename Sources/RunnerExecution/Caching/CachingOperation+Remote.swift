import Glibc
import Imaging
import RunnerBasics
import RunnerCache
import RunnerEvents
import RunnerRemoteAPI

/// What the remote cache gave for a task that neither was up to date nor in the local cache.
enum RemoteLookup {
  /// Its result, restored.
  case restored(any OperationResult)
  /// Its result, picked for a spot check (`--verify-cache`): the task runs here, then
  /// `finishCheck` compares.
  case check(SpotCheckRun)
  /// Picked for a spot check in a remote slot: run in a local one (it is fetched there).
  case handBack
}

/// A result found in the remote cache and picked for a spot check, downloaded into `scratch`
/// until the run here ends.
struct SpotCheckRun: Sendable {
  var found: RemoteResult
  var scratch: String
  /// The fingerprint the result was looked up under: the run here must be recorded under it.
  var key: String
  /// The result's action digest (`hash/size`), which names it in the remote cache.
  var action: String
}

/// The remote cache (`RunSettings.remote`): asked after the local cache misses, given what
/// runs. A remote result goes through the local cache — saved there, then restored as a local
/// entry is — so it is checked and written the same way; a fault is a miss.
extension CachingOperation {
  /// Whether an upload of `fingerprint` to the remote cache was started and not done, when
  /// one would be made now (a remote cache, uploads on and not turned off).
  func uploadPending(_ fingerprint: String) -> Bool {
    guard let cache = remote.cache, cache.uploads, !cache.isOff else { return false }
    return store.uploadPending(fingerprint)
  }

  /// The task's Action, when a remote cache is in use and the key is the fingerprint's.
  func remoteKey(_ prepared: Prepared, _ context: OperationContext) -> ActionKey? {
    guard remote.cache != nil, store.settings.useCache else { return nil }
    return actionKey(prepared, context)
  }

  /// The task's Action, when its digest is the fingerprint's (it is, unless the task's
  /// sources changed between the two).
  func actionKey(_ prepared: Prepared, _ context: OperationContext) -> ActionKey? {
    let environment = store.keyEnvironment(context.task) { name, key in
      (context.inputs[name] as? any OutputProviding)?.outputs[key]
    }
    let key = ActionKey(
      task: context.task, environment: environment, dependencies: prepared.fingerprint.dependencies,
      sources: prepared.fingerprint.sources, discovered: prepared.fingerprint.discovered)
    return key.digest.hash == prepared.fingerprint.value ? key : nil
  }

  /// The remote result for this task, restored, or picked for a spot check; nil on a miss or
  /// a fault.
  func restoreRemote(_ prepared: Prepared, _ context: OperationContext) async -> RemoteLookup? {
    guard let remote = remote.cache, let key = remoteKey(prepared, context) else { return nil }
    let forCheck = remote.picksForCheck(key)
    let scratch = context.scratchDirectory + "/remote-\(context.task.index)-\(context.attempt)"
    guard mkdir(scratch, 0o700) == 0 || errno == EEXIST else { return nil }
    guard
      let found = await remote.fetch(
        key, task: context.task.name, scratch: scratch, forCheck: forCheck, warn: store.warn)
    else {
      CacheFileSystem.removeTree(scratch)
      return nil
    }
    if forCheck {
      // Run here, never on the executor: a remote slot hands the task back to a local one,
      // where it is fetched again.
      if context.remoteSlot {
        CacheFileSystem.removeTree(scratch)
        return .handBack
      }
      return .check(
        SpotCheckRun(
          found: found, scratch: scratch, key: prepared.fingerprint.value,
          action: "\(key.digest.hash)/\(key.digest.size)"))
    }
    defer { CacheFileSystem.removeTree(scratch) }
    let stored: Int64
    do {
      stored = try store.cache.save(found.entry, contents: found.contents, for: prepared.fingerprint.value)
    } catch {
      store.warn("cannot keep '\(context.task.name)' from the remote cache: \(error); running it")
      return nil
    }
    let result = restore(
      prepared.fingerprint, context, concluded: .restoredRemotely, stored: stored, outcome: .restoredRemotely,
      because: prepared.reason)
    return result.map(RemoteLookup.restored)
  }

  /// Ends a spot check after the task ran here: what its run left — the output files in place
  /// (path, content, executable bit), its values and its image — compared with the remote
  /// result. A difference fails the task (not retried), naming the key that signed the result
  /// and the first differing file; the files in place are this run's, and no record calls the
  /// task up to date.
  ///
  /// - Parameter fingerprint: the key the run was recorded under; nil when it was not
  ///   (a traced run that was not whole).
  func finishCheck(
    _ check: SpotCheckRun, _ result: any OperationResult, _ fingerprint: Fingerprint?, _ context: OperationContext
  ) throws(TaskFailure) {
    defer { CacheFileSystem.removeTree(check.scratch) }
    let task = context.task
    guard let fingerprint, fingerprint.value == check.key else {
      // The run read other files than those the result's key names: not the same action.
      return store.warn(
        "\(task.name): not spot-checked: its run here read other inputs than the remote cache's result was stored for")
    }
    var here = CacheEntry()
    let paths = SourceGlob.expand(Fingerprint.outputPatterns(of: task), in: context.workingDirectory)
    let previous = store.record(task.name)?.outputs ?? []
    for file in Fingerprint.hashFiles(paths, in: context.workingDirectory, previous: previous, disk: store.disk) {
      guard let content = file.content else { continue }
      here.files.append(
        CacheEntry.File(path: file.path, mode: file.executable ? 0o755 : 0o644, size: content.size, hash: content.hash))
    }
    here.values = ((result as? any OutputProviding)?.outputs ?? [:]).map { (key: $0.key, value: $0.value) }
    here.image = ((result as? any ImageProviding)?.image).flatMap { try? ImageCodec.encodePNG($0, fast: true) }
    let difference = CacheSpotCheck.firstDifference(found: check.found.entry, here: here)
    remote.cache?.noteCheck(differed: difference != nil)
    guard let difference else { return }
    store.update(task.name, nil)
    if let whole = task.wholeTask {
      store.update(whole.name, nil)
      store.update(whole.firstPart, nil)
    }
    var at = ""
    if let path = difference.path, let index = check.found.entry.files.firstIndex(where: { $0.path == path }),
      let offset = CacheFileSystem.firstDifference(
        check.found.contents[index], FilePath.resolve(path, in: context.workingDirectory))
    {
      at = " at byte offset \(offset)"
    }
    throw .spotCheck(
      "spot check failed: the remote cache's result (\(check.found.signer)) differs from the run here: "
        + "\(difference)\(at); it was not restored (its action: \(check.action))")
  }

  /// Gives what the task's run stored in the local cache to the remote cache. Until the upload
  /// is done, `.runner/uploads` names it (`IncrementalStore.markUploadPending`): one cut short
  /// is made by a later run.
  ///
  /// - Parameter key: the Action, when another part of the task worked it out (`WholeTask`).
  func storeRemote(_ prepared: Prepared, _ context: OperationContext, key: ActionKey? = nil) async {
    let fingerprint = prepared.fingerprint.value
    guard let remote = remote.cache, remote.uploads, !remote.isOff else { return }
    guard let key = key ?? remoteKey(prepared, context), let entry = try? store.cache.load(fingerprint) else {
      return store.uploadDone(fingerprint)  // nothing to give (evicted, cleaned): nothing pending
    }
    // Its log is masked already; a value is the dependents' input and is kept as it is, here only.
    if entry.values.contains(where: { store.secrets.reveals($0.value) }) {
      store.warn("\(context.task.name): not uploaded: an output value holds a secret")
      return store.uploadDone(fingerprint)
    }
    store.markUploadPending(fingerprint)
    await remote.store(entry, for: key, task: context.task.name, warn: store.warn)
    if !Task.isCancelled, !remote.isOff { store.uploadDone(fingerprint) }
  }
}
