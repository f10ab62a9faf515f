import RunnerModel

extension ActionKey {
  /// The Action a remote worker runs for a task: the key's, with what runner gives a task
  /// that the key leaves out — `$RUNNER_OUTPUT` (a file the worker returns as an output),
  /// `$RUNNER_TASK` — so its digest differs from the key's. The result is stored under the
  /// key afterwards, so the local and remote caches agree whichever way the task ran.
  package struct Runnable: Sendable {
    package var command: ActionMessages.Command
    package var action: ActionMessages.Action
    /// The input root's directories, the root first (the key's).
    package var directories: [[UInt8]]
    /// What the worker finds in the input root, for a traced Action (`tracedRunnable`), whose
    /// run is checked against it; nil for any other.
    package var root: InputRootView?

    package var digest: ActionMessages.Digest { ActionMessages.Digest(of: action.encoded) }
  }

  /// Where the worker's command writes its values, relative to its working directory.
  package static let valuesOutput = ".runner/output"

  /// A shell that names the values file and execs the task's own argv (`"$@"`).
  static let wrapper = [
    "/bin/sh", "-c", "RUNNER_OUTPUT=\"$PWD/\(valuesOutput)\"; export RUNNER_OUTPUT; exec \"$@\"", "runner",
  ]

  /// The Action a worker runs for `task`.
  ///
  /// - Parameter extra: files the worker needs beside the sources — the outputs of the task's
  ///   dependencies, which the key covers through what they hand on — by path from the task
  ///   file's directory. A path the sources hold already keeps the source's entry.
  package func runnable(task: String, extra: [InputFile] = []) -> Runnable {
    var command = self.command
    // A POSIX shell's `$0` is the task's name, as in a local run (the key leaves it out, so
    // tasks of the same command share it).
    if command.arguments.count > 2, ShellSetting.takesName(Array(command.arguments.dropLast())) {
      command.arguments.append(task)
    }
    command.arguments = Self.wrapper + command.arguments
    command.environment.removeAll { $0.name == "RUNNER_TASK" || $0.name == "RUNNER_OUTPUT" }
    command.environment.append((name: "RUNNER_TASK", value: task))
    command.outputPaths.append(Self.valuesOutput)
    var action = self.action
    action.command = ActionMessages.Digest(of: command.encoded)
    var directories = self.directories
    var known = Set(files.map(\.path))
    let added = extra.filter { known.insert($0.path).inserted }
    if !added.isEmpty {
      let encoded = InputTree(files + added).encoded()
      action.inputRoot = encoded.root
      directories = encoded.directories
    }
    return Runnable(command: command, action: action, directories: directories, root: nil)
  }
}

extension TaskDefinition {
  /// Why the task cannot run on a remote worker; nil when it can. A remote worker sees only
  /// the task's sources, at their paths below the task file's directory, and returns only
  /// its declared outputs, by path.
  package var remoteExecutionRefusal: String? {
    switch action {
    case .group: return "a group runs nothing"
    case .image: return "image steps run here"
    case .shell: break
    }
    // The files a depfile names are known only after a run, and it is read here.
    if self.depfile != nil { return "a task with a depfile runs here (runner reads the depfile after its run)" }
    if self.sandboxStrict { return "a task with sandbox: strict runs here, where runner holds it to what it declares" }
    // A traced task goes with the files its last run read (`tracedRunnable`).
    if sources.isEmpty, !self.sourcesAuto { return "it has no sources (a worker sees only a task's sources)" }
    if isService { return "a service runs here" }
    if isInteractive { return "an interactive task runs here" }
    if always { return "a cleanup runs here" }
    if let directory, ActionKey.normalized(directory) == nil { return "its dir is outside the task file's directory" }
    for pattern in sources where pattern.hasPrefix("/") || pattern.split(separator: "/").contains("..") {
      return "source '\(pattern)' lies outside the task file's directory"
    }
    for pattern in outputs {
      if pattern.hasPrefix("/") || pattern.split(separator: "/").contains("..") {
        return "output '\(pattern)' lies outside the task file's directory"
      }
      if pattern.contains(where: { "*?[{!".contains($0) }) {
        return "output '\(pattern)' is a pattern (a worker returns outputs by path)"
      }
    }
    return nil
  }
}

extension TaskGraph {
  /// Why task `index` cannot run on a remote worker: its own reasons
  /// (`TaskDefinition.remoteExecutionRefusal`), or what it needs from this machine — readiness
  /// gates checked here, secrets (which never leave this machine), a service it depends on
  /// (directly or through groups). nil when it can.
  package func remoteExecutionRefusal(of index: Int) -> String? {
    let task = self[index]
    if let refusal = task.remoteExecutionRefusal { return refusal }
    if !task.waitFor.isEmpty { return "its wait_for gates are checked here" }
    if task.wholeTask != nil { return "it is one part of a task with calls, which runs here" }
    let secrets = secretNames(of: index)
    if !secrets.isEmpty {
      return
        "it reads the secret\(secrets.count == 1 ? "" : "s") \(secrets.joined(separator: ", ")), kept on this machine"
    }
    var work = Array(dependencies[index])
    var seen = Set<Int>()
    while let next = work.popLast() {
      guard seen.insert(next).inserted else { continue }
      if self[next].isService { return "it uses service '\(self[next].name)', which runs here" }
      if case .group = self[next].action { work.append(contentsOf: dependencies[next]) }
    }
    return nil
  }
}
