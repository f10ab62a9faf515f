import Glibc
import RunnerCache
import RunnerEvents
import RunnerModel
import RunnerProcess

/// Runs a task's `run` commands in order, each in its own process group; the first failure
/// ends the task. A command with no shell syntax is exec'd directly (as make does), which
/// halves the cost of a no-op; anything else runs under the task's shell (`sh -e -c` unless
/// the file or the task sets `shell`).
///
/// The task's outputs come from the file named by `$RUNNER_OUTPUT` (`key=value` lines, or
/// GitHub Actions' `key<<DELIM` form). They reach dependents only through the environment.
package struct ShellOperation: TaskOperation {
  package let commands: PackedList<Command>
  /// The shell's argv up to and including the flag that takes the script.
  package let shell: [String]
  /// The words after `--` for a target: the script's `"$@"` (its `$0` is the task's name).
  package let arguments: [String]
  let processes: any ProcessRunning
  /// Where the traces of its commands go, when the run traces its tasks (`--check-inputs`).
  let traces: TaskTraces?

  package init(
    commands: PackedList<Command>, shell: [String]? = nil, arguments: [String] = [],
    processes: any ProcessRunning = ProcessReactor.shared, traces: TaskTraces? = nil
  ) {
    self.commands = commands
    self.shell = shell ?? ShellSetting.standard
    self.arguments = arguments
    self.processes = processes
    self.traces = traces
  }

  package func run(_ context: OperationContext) async throws(TaskFailure) -> any OperationResult {
    var environment = context.environment()
    var strict: StrictSandbox?
    if context.task.sandboxStrict {
      if let why = Sandbox.unavailability { throw .message("sandbox: strict: \(why)") }
      let directory = "\(context.scratchDirectory)/\(context.task.index).\(context.attempt).sandbox"
      do {
        try CacheFileSystem.makeDirectories(directory + "/tmp")
      } catch {
        throw .message("sandbox: strict: cannot make its directory \(directory): \(error)")
      }
      strict = StrictSandbox(context: context, directory: directory)
      environment["TMPDIR"] = directory + "/tmp"
    }
    defer { if let strict { CacheFileSystem.removeTree(strict.directory) } }
    let outputPath =
      strict.map { $0.directory + "/output" }
      ?? "\(context.scratchDirectory)/\(context.task.index).\(context.attempt).out"
    environment["RUNNER_OUTPUT"] = outputPath
    environment["RUNNER_TASK"] = context.task.declaredName
    // Its own spans nest under its attempt's (never in its key: the process's environment only).
    if let trace = context.trace {
      environment["TRACEPARENT"] = trace.traceparent(task: context.task.index, attempt: context.attempt)
    }
    // `-j` shared with the task's tools; never in its key (set here, after the key's environment).
    let jobs = await context.jobserver?.prepare(
      context.task.isService ? .off : context.task.jobserver, strict: context.task.sandboxStrict,
      environment: &environment, runnerEnvironment: context.baseEnvironment, processes: processes)
    let leftovers = processes.leftoversSeen
    defer {
      // Any group left behind meanwhile (perhaps another task's) keeps the pool from the next task.
      if let jobs { context.jobserver?.slots.end(jobs, leftBehind: processes.leftoversSeen != leftovers) }
    }
    // Most tasks write no outputs: once reading finds no file, there is nothing to remove.
    var written = true
    defer { if written { unlink(outputPath) } }
    let trace = traces != nil || strict != nil ? ProcessTrace() : nil
    var finished = false
    func finish() throws(TaskFailure) {
      guard let trace, !finished else { return }
      finished = true
      let log = trace.finish()
      traces?.record(context.task.index, log)
      if let strict {
        let findings = strict.findings(log)
        if !findings.isEmpty { throw StrictSandbox.failure(findings) }
      }
    }
    do {
      try await runCommands(
        context, environment: environment, trace: trace, sandbox: strict?.sandbox, inherited: jobs?.inherited ?? [])
    } catch {
      // What the sandbox refused says why a command failed better than its exit status.
      try finish()
      throw error
    }
    try finish()
    guard let outputs = try Self.readOutputs(outputPath) else {
      written = false
      return ShellResult(outputs: [:])
    }
    return ShellResult(outputs: outputs)
  }

  private func runCommands(
    _ context: OperationContext, environment: [String: String], trace: ProcessTrace?, sandbox: Sandbox?,
    inherited: [Int32]
  ) async throws(TaskFailure) {
    for command in commands {
      let direct = ShellSetting.mayBypass(shell) ? CommandSplitter.directArguments(command.text) : nil
      // A POSIX shell's `$0` is the task's name, with or without the words after `--`.
      let named = !self.arguments.isEmpty || ShellSetting.takesName(shell)
      let arguments =
        direct ?? shell + [command.text] + (named ? [context.task.declaredName] + self.arguments : [])
      var spec = ProcessSpec(
        arguments: arguments, environment: environment, workingDirectory: context.workingDirectory,
        interactive: context.task.isInteractive)
      spec.trace = trace
      spec.sandbox = sandbox
      spec.inherited = inherited
      let outcome: ProcessOutcome
      do {
        outcome = try await processes.run(spec, sink: context.output, grace: context.grace)
      } catch {
        throw .spawn(command.text, error)
      }
      context.output.finishLine()
      context.output.recordExit(outcome)
      if Task.isCancelled { throw .cancelled }
      if context.task.isInteractive, outcome == .signaled(SIGINT), isatty(0) == 1 {
        // Ctrl-C went to the task, which held the terminal, and ended it: the run stops as
        // for runner's own Ctrl-C (cleanups, exit 130).
        throw .interrupted(SIGINT)
      }
      guard outcome.isSuccess || command.ignoresError else { throw .command(command.text, outcome) }
    }
  }

  /// The values in the file at `path`; nil when there is no such file.
  static func readOutputs(_ path: String) throws(TaskFailure) -> [String: String]? {
    let bytes: [UInt8]
    do {
      bytes = try FileReader.read(path)
    } catch {
      if case .fileNotFound = error { return nil }
      throw .outputs("cannot read $RUNNER_OUTPUT: \(error)")
    }
    do {
      return try OutputFileParser.parseDictionary(bytes)
    } catch {
      throw .outputs("invalid $RUNNER_OUTPUT: \(error)")
    }
  }
}

/// What a shell task provides: its `$RUNNER_OUTPUT` values.
package struct ShellResult: OutputProviding {
  package var outputs: [String: String]
}
