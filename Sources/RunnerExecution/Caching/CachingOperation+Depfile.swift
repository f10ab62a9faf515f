import Glibc
import RunnerBasics
import RunnerCache
import RunnerEvents

extension CachingOperation {
  /// The key a run of the task is recorded and cached under: for a task with a `depfile`, the
  /// key it ran under with the files the depfile names now (hashed now), as ninja reads a
  /// depfile after the command; for one with `sources: auto`, with the project's files its
  /// processes were seen to read (`TracedInputs`); otherwise `fingerprint` as it is.
  ///
  /// - Returns: nil for a traced run that was not seen whole (it is not recorded).
  /// - Throws: a failure of the task when the command left no depfile, or one runner cannot
  ///   read: a task whose inputs are unknown must not be recorded as up to date.
  ///
  /// - Parameter before: the file system's time before the command started (`Disk.now`): a
  ///   traced task's input modified since by someone else leaves the run unrecorded (nil).
  ///   The files a depfile names are hashed after the run, as ninja reads a depfile.
  func discovering(
    _ fingerprint: Fingerprint, _ context: OperationContext, before: (device: Int64?, time: Int64)?
  ) throws(TaskFailure)
    -> Fingerprint?
  {
    let task = context.task
    guard task.discoversInputs, let before else { return fingerprint }
    var paths: [String] = []
    var found: TracedInputs.Found?
    if let depfile = task.depfile { paths = try named(by: depfile, context) }
    if task.sourcesAuto {
      // A run not seen whole is never recorded as traced.
      guard let log = traces.log(of: task.index), log.isComplete else { return nil }
      let traced = TracedInputs(projectDirectory: store.projectDirectory)
      let seen = traced.inputs(of: log, directory: context.workingDirectory)
      let known = Set(paths)
      paths += seen.inputs.filter { !known.contains($0) }
      found = seen
    }
    let files = Fingerprint.hashFiles(
      paths, in: context.workingDirectory, previous: fingerprint.discovered ?? [], disk: store.disk)
    if let found {
      // An input someone else changed while the command ran: what it made may rest on what
      // the input was before. The run is not recorded; the next one runs the task again.
      for file in files where file.content != nil {
        let path = file.path.hasSuffix("/") ? String(file.path.dropLast()) : file.path
        // What the task wrote or made itself (a directory it made, then listed) is its own doing.
        let full = FilePath.resolve(path, in: context.workingDirectory)
        guard !found.touched.contains(path), let status = store.disk.files.status(full, follow: true),
          Disk.modified(status.stamp, after: before),
          // A directory looked at (not listed) counts by being one, not by what it holds.
          file.path.hasSuffix("/") || !status.isDirectory
        else { continue }
        // A directory the task itself added to or removed from changed by its own hand.
        if status.isDirectory, found.touchedDirectories.contains(path.isEmpty ? "." : path) { continue }
        return nil
      }
    }
    return fingerprint.discovering(files, task: task)
  }

  /// The files `depfile` names, as it spells them.
  func named(by depfile: String, _ context: OperationContext) throws(TaskFailure) -> [String] {
    let path = FilePath.resolve(depfile, in: context.workingDirectory)
    let bytes: [UInt8]
    do {
      bytes = try store.disk.files.read(path)
    } catch {
      throw .message("its depfile '\(depfile)' cannot be read: \(error)")
    }
    switch Depfile.prerequisites(bytes) {
    case .failure(let problem):
      throw .message("its depfile '\(depfile)' is not a Makefile-syntax dependency file: \(problem)")
    case .success(let paths): return paths
    }
  }
}

extension CachingOperation {
  /// What to look the task up under in the caches: `prepared` itself, unless the task has a
  /// depfile no record has read; then the key of the files its path set names (`PathSet`),
  /// from the local cache or else the remote one; nil when neither has a path set.
  func lookupKey(_ prepared: Prepared, _ context: OperationContext) async -> Prepared? {
    let task = context.task
    guard task.discoversInputs, prepared.fingerprint.discovered == nil else { return prepared }
    var next = prepared
    if let local = store.cacheKey(task, prepared.fingerprint, directory: context.workingDirectory) {
      next.fingerprint = local
      return next
    }
    // The weak key's Action is the key as it stands: no depfile read.
    guard let remote = remote.cache, let key = remoteKey(prepared, context) else { return nil }
    let scratch = context.scratchDirectory + "/paths-\(task.index)-\(context.attempt)"
    guard mkdir(scratch, 0o700) == 0 || errno == EEXIST else { return nil }
    defer { CacheFileSystem.removeTree(scratch) }
    guard let found = await remote.fetch(key, task: task.name, scratch: scratch, warn: store.warn),
      let paths = PathSet.paths(in: found.entry)
    else { return nil }
    next.fingerprint = prepared.fingerprint.discovering(
      Fingerprint.hashFiles(paths, in: context.workingDirectory, previous: [], disk: store.disk), task: task)
    return next
  }

  /// After a run of a task with a depfile: the files it named, as a path set under the key
  /// before any depfile is read, in the local cache and the remote one (when uploads are on),
  /// so a checkout with no record of them finds the run's result.
  func storePathSet(_ prepared: Prepared, _ context: OperationContext) async {
    let task = context.task
    guard task.discoversInputs, let read = prepared.fingerprint.discovered else { return }
    let weak = prepared.fingerprint.discovering(nil, task: task)
    let entry = PathSet.entry(read.map(\.path))
    if store.settings.useCache {
      do {
        _ = try store.cache.save(entry, contents: [], for: weak.value)
      } catch {
        store.warn("cannot store the files '\(task.name)' read in the cache: \(error)")
      }
    }
    var unread = prepared
    unread.fingerprint = weak
    guard let remote = remote.cache, remote.uploads, !remote.isOff, let key = remoteKey(unread, context) else {
      return
    }
    await remote.store(entry, for: key, task: task.name, warn: store.warn)
  }
}
