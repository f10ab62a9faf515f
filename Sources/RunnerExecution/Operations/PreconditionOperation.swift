import RunnerBasics
import RunnerModel

/// A task with `preconditions`: each command runs, in order, as the task's script would (its
/// shell, directory and environment, output discarded) before anything of the task does, up
/// to date or not; the first that fails fails the task with its message and place.
struct PreconditionOperation: TaskOperation {
  let preconditions: [Precondition]
  let inner: any TaskOperation
  let shell: [String]
  let reactor: ProcessReactor

  func conclude(_ context: OperationContext) -> Conclusion { .run(self) }

  func run(_ context: OperationContext) async throws(TaskFailure) -> any OperationResult {
    for precondition in preconditions {
      let command = precondition.command
      let direct = ShellSetting.mayBypass(shell) ? CommandSplitter.directArguments(command) : nil
      let spec = ProcessSpec(
        arguments: direct ?? shell + [command], environment: context.environment(),
        workingDirectory: context.workingDirectory)
      let outcome: ProcessOutcome
      do {
        outcome = try await reactor.run(spec, sink: DiscardingSink(), grace: context.grace)
      } catch {
        throw .spawn(command, error)
      }
      if Task.isCancelled { throw .cancelled }
      guard outcome.isSuccess else {
        throw .message(
          "\(precondition.location): precondition failed: "
            + (precondition.message ?? "'\(TaskFailure.shorten(command))' failed with \(outcome)"))
      }
    }
    switch inner.conclude(context) {
    case .finished(let result): return result
    case .run(let operation): return try await operation.run(context)
    }
  }
}
