import RunnerBasics
import RunnerEvents
import RunnerModel
import RunnerProcess

/// A task with `preconditions`: each command runs, in order, as the task's script would (its
/// shell, directory and environment, output discarded) before anything of the task does, up
/// to date or not; the first that fails fails the task with its message and place.
struct PreconditionOperation: TaskOperation {
  let preconditions: [Precondition]
  let inner: any TaskOperation
  let shell: [String]
  let processes: any ProcessRunning

  func conclude(_ context: OperationContext) -> Conclusion { .run(self) }

  func run(_ context: OperationContext) async throws(TaskFailure) -> any OperationResult {
    for precondition in preconditions {
      let command = precondition.command
      let outcome = try await ConditionalOperation.check(command, shell: shell, context, processes: processes)
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
