import Glibc
import RunnerCache
import RunnerEvents
import RunnerModel
import RunnerProcess
import RunnerRemoteAPI

/// Remote execution (`RunSettings.remote`): a task the scheduler gave a remote slot
/// runs on the server when neither cache holds its result. What comes back goes through the
/// local cache — saved there, then restored as a local entry is — so it is checked and written
/// the same way, and the task is recorded as if it had run here.
extension CachingOperation {
  /// Runs the task remotely; throws `.runLocally` when it must run here instead (the session
  /// is off after a fault, or the task's sources lie outside the input root).
  func executeRemotely(_ prepared: Prepared, _ context: OperationContext) async throws(TaskFailure)
    -> any OperationResult
  {
    let task = context.task
    guard let session = remote.execution, !session.isOff else {
      throw .runLocally("remote execution is off after a fault")
    }
    guard let key = actionKey(prepared, context) else { throw .runLocally("its key is not the local one") }
    guard key.isSelfContained else { throw .runLocally("a source lies outside the task file's directory") }
    if task.sourcesAuto, let refusal = Self.remoteTraceRefusal(prepared) { throw .runLocally(refusal) }
    var inputs: [ActionMessages.Digest: String] = [:]
    // A traced task's sources are the files its last run read (a directory's stand-in aside).
    for file in prepared.fingerprint.sources + (prepared.fingerprint.discovered ?? []) where !file.path.hasSuffix("/") {
      if let content = file.content, content != Fingerprint.directoryDigest {
        inputs[content] = context.workingDirectory + "/" + file.path
      }
    }
    // The worker sees the dependencies' output files too, at their paths.
    var extra: [ActionKey.InputFile] = []
    for dependency in context.dependencyOutputs {
      let directory = dependency.workingDirectory
      let paths = SourceGlob.expand(dependency.patterns, in: directory)
      let previous = store.record(dependency.name)?.outputs ?? []
      for output in Fingerprint.hashFiles(paths, in: directory, previous: previous, disk: store.disk) {
        guard let digest = output.content, let path = ActionKey.normalized(dependency.directory + "/" + output.path)
        else { continue }
        extra.append(ActionKey.InputFile(path: path, digest: digest, executable: output.executable))
        inputs[digest] = directory + "/" + output.path
      }
    }
    let scratch = context.scratchDirectory + "/exec-\(task.index)-\(context.attempt)"
    guard mkdir(scratch, 0o700) == 0 || errno == EEXIST else {
      throw .runLocally("cannot make a scratch directory for its outputs")
    }
    defer { CacheFileSystem.removeTree(scratch) }
    var runnable = key.runnable(task: task.declaredName, extra: extra)
    if task.sourcesAuto, let tracer = Self.tracer {
      runnable = key.tracedRunnable(task: task.declaredName, extra: extra, tracer: tracer.digest)
      inputs[tracer.digest] = tracer.path
    }
    // The executor's own cache is not signed: with `remote.trust` it is not asked.
    let skipsCache = store.settings.forces(task.index) || remote.cache?.cache.trustsOnlySigned == true
    let job = RemoteJob(runnable: runnable, inputs: inputs, skipCacheLookup: skipsCache)
    guard var run = await session.execute(job, task: task.name, scratch: scratch, warn: store.warn) else {
      if Task.isCancelled { throw .cancelled }
      throw .runLocally("remote execution failed")
    }
    if Task.isCancelled { throw .cancelled }
    // A server that served its own (unsigned) cache despite `skip_cache_lookup`.
    if run.cached, remote.cache?.cache.trustsOnlySigned == true {
      throw .runLocally("its remote executor answered from its own cache, which is not signed")
    }
    // Checked before the exit code: a run that failed for want of a file it was not sent
    // runs here.
    var prepared = prepared
    if task.sourcesAuto { prepared.fingerprint = try remotelyTraced(run, runnable, key: key, prepared, context) }
    guard run.exitCode == 0 else {
      for chunk in run.entry.log {
        chunk.bytes.withUnsafeBytes { context.output.receive(lines: OutputLines($0), stream: chunk.stream) }
      }
      context.output.recordExit(.exited(run.exitCode))
      store.update(task.name, nil)
      throw .command(Self.commandText(of: task), .exited(run.exitCode))
    }
    // A declared output the command did not create fails the task, as it does here.
    let produced = Set(run.entry.files.map(\.path))
    for pattern in task.outputs where !produced.contains(pattern) && ActionKey.normalized(pattern) == pattern {
      store.update(task.name, nil)
      throw .message("declared output '\(pattern)' was not created")
    }
    if let values = run.values {
      do {
        run.entry.values = try OutputFileParser.parseDictionary(values).sorted { $0.key < $1.key }
          .map { (key: $0.key, value: $0.value) }
      } catch {
        throw .outputs("invalid $RUNNER_OUTPUT: \(error)")
      }
    }
    let stored: Int64
    do {
      stored = try store.cache.save(run.entry, contents: run.contents, for: prepared.fingerprint.value)
    } catch {
      throw .message("cannot keep the outputs of its remote run: \(error)")
    }
    let concluded = Concluded.ranRemotely(on: run.cached ? nil : session.executor.name)
    guard
      let result = restore(
        prepared.fingerprint, context, concluded: concluded, stored: stored, outcome: .executedRemotely,
        because: prepared.reason)
    else {
      throw .message("cannot restore the outputs of its remote run")
    }
    try Self.checkOutputsExist(task, context)
    await storeRemote(prepared, context)
    await storePathSet(prepared, context)
    return result
  }

  /// The task's commands, as a failure names them.
  static func commandText(of task: TaskDefinition) -> String {
    guard case .shell(let commands) = task.action else { return task.name }
    return commands.map(\.text).joined(separator: "\n")
  }
}
