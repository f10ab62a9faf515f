import RunnerModel

extension ActionKey {
  /// Where `runner-trace` writes what the worker's command did, from its working directory.
  package static let traceOutput = ".runner/trace.log"
  /// Where `runner-trace` lies in a traced Action's input root.
  static let tracerPath = ".runner/tracer/runner-trace"

  /// The Action a worker runs for a `sources: auto` task: `runnable(task:extra:)`'s, with the
  /// task's command run by `runner-trace` (`tracer`, its digest; it goes up with the inputs),
  /// and the directories its last run looked at as directories (the key holds them as
  /// stand-ins, which are no files).
  package func tracedRunnable(task: String, extra: [InputFile], tracer: ActionMessages.Digest) -> Runnable {
    var runnable = self.runnable(task: task, extra: extra)
    let depth = command.workingDirectory.split(separator: "/").count
    let program = depth == 0 ? "./" + Self.tracerPath : String(repeating: "../", count: depth) + Self.tracerPath
    var command = runnable.command
    // The wrapper's shell names the values file, then execs the tracer, which runs the task's argv.
    command.arguments =
      [
        "/bin/sh", "-c",
        "RUNNER_OUTPUT=\"$PWD/\(Self.valuesOutput)\"; export RUNNER_OUTPUT; exec \"$0\" \(Self.traceOutput) \"$@\"",
        program,
      ] + self.command.arguments
    command.outputPaths.append(Self.traceOutput)
    var known = Set<String>()
    var files: [InputFile] = []
    var directories: [String] = []
    for file in self.files + extra where known.insert(file.path).inserted {
      if file.digest == Fingerprint.directoryDigest {
        directories.append(file.path)
      } else {
        files.append(file)
      }
    }
    files.append(InputFile(path: Self.tracerPath, digest: tracer, executable: true))
    let tree = InputTree(files)
    for directory in directories { tree.add(directory: directory) }
    let encoded = tree.encoded()
    runnable.command = command
    runnable.action.command = ActionMessages.Digest(of: command.encoded)
    runnable.action.inputRoot = encoded.root
    runnable.directories = encoded.directories
    // The worker makes the directories of the outputs before the command starts.
    let base = command.workingDirectory
    let made = command.outputPaths.compactMap { output -> String? in
      let path = ActionKey.normalized(base.isEmpty ? output : base + "/" + output)
      return path.flatMap { $0.contains("/") ? String($0[..<$0.lastIndex(of: "/")!]) : nil }
    }
    runnable.root = InputRootView(files: files, directories: directories + made)
    return runnable
  }
}

/// What a worker finds in an input root, described as `Fingerprint.hashFiles` describes what
/// is on this machine: a traced remote run is kept only where every path it looked at is the
/// same in both.
package struct InputRootView: Sendable {
  private var files: [String: ContentDigest] = [:]
  /// Each directory ("" the root) with the names in it.
  private var entries: [String: Set<String>] = ["": []]

  init(files: [ActionKey.InputFile], directories: [String]) {
    for file in files {
      self.files[file.path] = file.digest
      note(file.path)
    }
    for directory in directories { note(directory, isDirectory: true) }
  }

  private mutating func note(_ path: String, isDirectory: Bool = false) {
    var segments = path.split(separator: "/").map(String.init)
    if isDirectory, !segments.isEmpty, entries[path] == nil { entries[path] = [] }
    while let name = segments.popLast() {
      let parent = segments.joined(separator: "/")
      entries[parent, default: []].insert(name)
    }
  }

  /// The names at the top of the root.
  package var topNames: Set<String> { entries[""] ?? [] }

  /// `path` from the root (a trailing `/`: its listing): its content as `hashFiles` gives it,
  /// nil when the root has nothing there.
  package func content(of path: String) -> ContentDigest? {
    if path.hasSuffix("/") {
      let directory = path == "./" || path == "/" ? "" : String(path.dropLast())
      return entries[directory].map { Fingerprint.listingDigest(of: $0.sorted()) }
    }
    if let digest = files[path] { return digest }
    return entries[path] != nil ? Fingerprint.directoryDigest : nil
  }
}
