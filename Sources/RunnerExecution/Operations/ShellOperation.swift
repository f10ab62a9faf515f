import Glibc
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
  package let commands: [Command]
  /// The shell's argv up to and including the flag that takes the script.
  package let shell: [String]
  /// The words after `--` for a target: the script's `"$@"` (its `$0` is the task's name).
  package let arguments: [String]
  let processes: any ProcessRunning
  /// Where the traces of its commands go, when the run traces its tasks (`--check-inputs`).
  let traces: TaskTraces?

  package init(
    commands: [Command], shell: [String]? = nil, arguments: [String] = [],
    processes: any ProcessRunning = ProcessReactor.shared, traces: TaskTraces? = nil
  ) {
    self.commands = commands
    self.shell = shell ?? ShellSetting.standard
    self.arguments = arguments
    self.processes = processes
    self.traces = traces
  }

  package func run(_ context: OperationContext) async throws(TaskFailure) -> any OperationResult {
    let outputPath = "\(context.scratchDirectory)/\(context.task.index).\(context.attempt).out"
    var environment = context.environment()
    environment["RUNNER_OUTPUT"] = outputPath
    environment["RUNNER_TASK"] = context.task.name
    // Most tasks write no outputs: once reading finds no file, there is nothing to remove.
    var written = true
    defer { if written { unlink(outputPath) } }
    let trace = traces.map { _ in ProcessTrace() }
    defer { if let trace { traces?.record(context.task.index, trace.finish()) } }
    for command in commands {
      let direct = ShellSetting.mayBypass(shell) ? CommandSplitter.directArguments(command.text) : nil
      let arguments =
        direct
        ?? shell + [command.text] + (self.arguments.isEmpty ? [] : [context.task.name] + self.arguments)
      var spec = ProcessSpec(
        arguments: arguments, environment: environment, workingDirectory: context.workingDirectory,
        interactive: context.task.isInteractive)
      spec.trace = trace
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
    guard let outputs = try Self.readOutputs(outputPath) else {
      written = false
      return ShellResult(outputs: [:])
    }
    return ShellResult(outputs: outputs)
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
