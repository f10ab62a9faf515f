import RunnerBasics
import RunnerCache
import RunnerEvents
import RunnerModel
import RunnerProcess
import RunnerRemoteAPI

/// Remote execution of a `sources: auto` task. The worker cannot be asked for "the project":
/// it gets the files the task's last traced run read (its recorded inputs, as they are here
/// now), its dependencies' outputs, and `runner-trace`, which runs the command traced there
/// and returns what it saw. The run is kept only if every project path it looked at is on the
/// worker as it is here — then it is the run this machine would have made — and is recorded
/// under the inputs it read, as a local traced run is. Otherwise (a new header, a file the
/// recorded inputs did not hold, a run not traced whole) the task runs here, traced.
extension CachingOperation {
  /// `runner-trace` and its digest, hashed once; nil when it is not installed.
  static let tracer: (path: String, digest: ContentDigest)? = {
    guard let path = TraceHelper.path, let bytes = try? FileReader.read(path) else { return nil }
    return (path, ContentDigest(of: bytes))
  }()

  /// Why the task cannot run remotely traced now; nil when it can.
  static func remoteTraceRefusal(_ prepared: Prepared) -> String? {
    if tracer == nil { return "runner-trace, which traces it on the worker, is not installed beside runner" }
    if prepared.fingerprint.discovered == nil { return "its inputs are known only after its first run, traced here" }
    return nil
  }

  /// The task's fingerprint under the inputs its remote run read (as hashed here now).
  ///
  /// - Throws: `.runLocally` when the run left no whole trace, or looked at a path the worker
  ///   had otherwise than this machine has it.
  func remotelyTraced(
    _ run: RemoteRun, _ runnable: ActionKey.Runnable, key: ActionKey, _ prepared: Prepared,
    _ context: OperationContext
  ) throws(TaskFailure) -> Fingerprint {
    guard let bytes = run.trace, let (remoteDirectory, remoteLog) = TraceHelper.log(bytes) else {
      throw .runLocally("its remote run returned no trace")
    }
    if let problem = remoteLog.problem { throw .runLocally("its remote run was not traced whole: \(problem)") }
    let base = key.command.workingDirectory
    let depth = base.split(separator: "/").count
    let remoteParts = remoteDirectory.split(separator: "/")
    guard remoteParts.count >= depth else { throw .runLocally("its remote run reported no working directory") }
    let remoteRoot = "/" + remoteParts.dropLast(depth).joined(separator: "/")
    let upward = Array(repeating: "..", count: depth).joined(separator: "/")
    let localRoot = FilePath.canonical(
      depth == 0 ? context.workingDirectory : FilePath.resolve(upward, in: context.workingDirectory))
    // The worker's paths below its input root are the project's here.
    var log = remoteLog
    for index in log.accesses.indices {
      let path = TracedInputs.normalized(log.accesses[index].path)
      if path == remoteRoot {
        log.accesses[index].path = localRoot
      } else if path.hasPrefix(remoteRoot == "/" ? "/" : remoteRoot + "/") {
        log.accesses[index].path = localRoot + "/" + path.dropFirst(remoteRoot == "/" ? 1 : remoteRoot.count + 1)
      }
    }
    let seen = TracedInputs(projectDirectory: store.projectDirectory).inputs(
      of: log, directory: context.workingDirectory)
    let files = Fingerprint.hashFiles(
      seen.inputs, in: context.workingDirectory, previous: prepared.fingerprint.discovered ?? [], disk: store.disk)
    for file in files {
      let listed = file.path.hasSuffix("/")
      let plain = listed ? String(file.path.dropLast()) : file.path
      guard let inRoot = ActionKey.normalized(base.isEmpty ? plain : base + "/" + plain) else {
        throw .runLocally("its remote run read '\(file.path)', outside the input root")
      }
      let there = runnable.root.content(of: listed ? inRoot + "/" : inRoot)
      guard there == file.content else {
        let what = listed ? "listed" : file.content == nil ? "looked for" : "read"
        throw .runLocally(
          "its remote run \(what) '\(file.path)', which it had otherwise than this machine (not among its recorded inputs)"
        )
      }
    }
    return prepared.fingerprint.discovering(files, task: context.task)
  }
}
