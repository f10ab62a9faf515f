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
    guard let root = runnable.root, let bytes = run.trace, let (remoteDirectory, remoteLog) = TraceHelper.log(bytes)
    else {
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
    // A worker may make its input root `/` (buildbox-run's bubblewrap does, with the system's
    // `/usr` beside it): there a path is the project's when its first name is, here or there.
    let topNames =
      remoteRoot == "/" ? root.topNames.union(store.disk.files.list(localRoot).map(\.name)) : nil
    let log = try mapped(remoteLog, from: remoteRoot, onto: localRoot, topNames: topNames, workingDirectory: base)
    let seen = TracedInputs(projectDirectory: store.projectDirectory).inputs(
      of: log, directory: context.workingDirectory)
    let files = Fingerprint.hashFiles(
      seen.inputs, in: context.workingDirectory, previous: prepared.fingerprint.discovered ?? [], disk: store.disk)
    // What it wrote, made or removed (its declared outputs and their directories aside, which
    // the worker starts without or makes itself) was as it is here when it started: a file
    // appended to, or made only when absent, would otherwise come out otherwise.
    let outputs = Set(context.task.outputs.compactMap { ActionKey.normalized($0) })
    let touched = seen.touched.filter { path in
      path != ActionKey.valuesOutput && !outputs.contains(path) && !outputs.contains { $0.hasPrefix(path + "/") }
    }
    let before = Fingerprint.hashFiles(touched.sorted(), in: context.workingDirectory, previous: [], disk: store.disk)
    for file in files + before {
      let listed = file.path.hasSuffix("/")
      let plain = listed ? String(file.path.dropLast()) : file.path
      guard let inRoot = ActionKey.normalized(base.isEmpty ? plain : base + "/" + plain) else {
        throw .runLocally("its remote run used '\(file.path)', outside the input root")
      }
      let there = root.content(of: listed ? inRoot + "/" : inRoot)
      guard there == file.content else {
        let what = listed ? "listed" : file.content == nil ? "looked for" : "used"
        throw .runLocally(
          "its remote run \(what) '\(file.path)', which the worker had otherwise than this machine has it")
      }
    }
    return prepared.fingerprint.discovering(files, task: context.task)
  }

  /// `log` with the worker's paths below `remoteRoot` made the project's below `localRoot`.
  ///
  /// - Throws: `.runLocally` when the worker used what it lacks and this machine has: a path
  ///   of this machine's checkout named as such, or `.git` and runner's `.runner` (the values
  ///   file aside), which are not in the input root and not among the inputs compared.
  ///
  /// - Parameter topNames: for a worker whose input root is `/`, the names a project path
  ///   starts with; others are the worker's system, at the same paths as this machine's.
  func mapped(
    _ log: ProcessTrace.Log, from remoteRoot: String, onto localRoot: String, topNames: Set<String>?,
    workingDirectory: String
  ) throws(TaskFailure) -> ProcessTrace.Log {
    let project = FilePath.canonical(store.projectDirectory)
    let allowed = Set(
      [ActionKey.valuesOutput, ActionKey.traceOutput].compactMap {
        ActionKey.normalized(workingDirectory.isEmpty ? $0 : workingDirectory + "/" + $0)
      })
    var log = log
    for index in log.accesses.indices {
      let path = TracedInputs.normalized(log.accesses[index].path)
      let below: Bool
      if let topNames {
        below = path == "/" || topNames.contains(String(path.dropFirst().prefix { $0 != "/" }))
      } else {
        below = path == remoteRoot || path.hasPrefix(remoteRoot + "/")
      }
      guard below else {
        if path == project || path.hasPrefix(project + "/") {
          throw .runLocally("its remote run named '\(path)', a path of this machine's checkout")
        }
        continue
      }
      let relative = path == remoteRoot ? "" : String(path.dropFirst(remoteRoot == "/" ? 1 : remoteRoot.count + 1))
      let top = relative.split(separator: "/").first ?? ""
      if top == ".git" || (top == ".runner" && !allowed.contains(relative)) {
        throw .runLocally("its remote run used '\(relative)', which the worker does not have as this machine has it")
      }
      log.accesses[index].path = relative.isEmpty ? localRoot : localRoot + "/" + relative
    }
    return log
  }
}
