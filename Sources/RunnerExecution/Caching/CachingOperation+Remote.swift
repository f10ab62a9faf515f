import Glibc
import RunnerCache
import RunnerRemoteAPI

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

  /// The remote result for this task, restored; nil on a miss or a fault.
  func restoreRemote(_ prepared: Prepared, _ context: OperationContext) async -> (any OperationResult)? {
    guard let remote = remote.cache, let key = remoteKey(prepared, context) else { return nil }
    let scratch = context.scratchDirectory + "/remote-\(context.task.index)-\(context.attempt)"
    guard mkdir(scratch, 0o700) == 0 || errno == EEXIST else { return nil }
    defer { CacheFileSystem.removeTree(scratch) }
    guard let (entry, contents) = await remote.fetch(key, task: context.task.name, scratch: scratch, warn: store.warn)
    else { return nil }
    let stored: Int64
    do {
      stored = try store.cache.save(entry, contents: contents, for: prepared.fingerprint.value)
    } catch {
      store.warn("cannot keep '\(context.task.name)' from the remote cache: \(error); running it")
      return nil
    }
    return restore(
      prepared.fingerprint, context, concluded: .restoredRemotely, stored: stored, outcome: .restoredRemotely,
      because: prepared.reason)
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
