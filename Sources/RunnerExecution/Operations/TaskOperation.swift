import RunnerBasics
import RunnerEvents
import RunnerModel
import RunnerProcess

/// A task's executable form: what runs when the scheduler starts it.
///
/// The lifecycle (pending → ready → executing → succeeded / failed / cancelled, or skipped)
/// belongs to the scheduler; an operation only runs once per attempt. Cancellation arrives
/// as Swift task cancellation (fail-fast, Ctrl-C, timeout): an operation must then stop
/// promptly and throw `TaskFailure.cancelled`.
package protocol TaskOperation: Sendable {
  /// - Returns: what the task provides to its dependents.
  /// - Throws: `TaskFailure` saying why the task did not succeed.
  func run(_ context: OperationContext) async throws(TaskFailure) -> any OperationResult

  /// What the scheduler can conclude at once, on its own thread, without starting the
  /// operation: a task that is up to date finishes here, without a child task, a timer or a
  /// hop between threads (10 000 up-to-date tasks cost a few milliseconds, as ninja's loop).
  ///
  /// - Returns: the result, or the operation to run (which may carry what was worked out).
  func conclude(_ context: OperationContext) -> Conclusion
}

/// What `TaskOperation.conclude` found.
package enum Conclusion: Sendable {
  case finished(any OperationResult)
  case run(any TaskOperation)
}

extension TaskOperation {
  package func conclude(_ context: OperationContext) -> Conclusion { .run(self) }
}

/// What a finished task hands to its dependents. Dependents ask for the capability they need
/// (`OutputProviding`, `ImageProviding`) rather than for a concrete type.
package protocol OperationResult: Sendable {}

/// A result with named string outputs, read by dependents as `${{ deps.NAME.outputs.KEY }}`.
package protocol OutputProviding: OperationResult {
  var outputs: [String: String] { get }
}

/// Everything an operation needs for one attempt.
package struct OperationContext: Sendable {
  package var task: TaskDefinition
  /// Results of the task's direct dependencies, by task name.
  package var inputs: [String: any OperationResult]
  /// The environment before the task's own `env`: runner's environment plus the file's `env`.
  package var baseEnvironment: [String: String]
  /// Where the task runs: the task file's directory joined with the task's `dir`.
  package var workingDirectory: String
  /// Receives the task's output lines.
  package var output: TaskOutput
  /// SIGTERM → SIGKILL grace period for cancelled processes.
  package var grace: Duration
  /// A directory private to this run, for `$RUNNER_OUTPUT` files.
  package var scratchDirectory: String
  /// 1 for the first attempt.
  package var attempt: Int
  /// The run's trace, when it is exported: the process gets its attempt's `TRACEPARENT`.
  package var trace: TraceContext?
  /// The task's image input, chosen at load time (see `TaskGraph.imageInput(of:)`).
  package var imageInput: String?
  /// The scheduler gave the task a remote slot (`--remote-jobs`): it runs on the remote
  /// executor, or comes back with `.runLocally`.
  package var remoteSlot = false
  /// For a task in a remote slot or a strict sandbox: its dependencies' declared outputs,
  /// which the worker needs and the sandbox lets it read.
  package var dependencyOutputs: [DependencyOutputs] = []
  /// The task file's directory (set for a task in a strict sandbox).
  package var projectDirectory = ""
  /// The run's jobserver, for a shell task's `MAKEFLAGS`; nil: none.
  package var jobserver: RunJobserver?

  package struct DependencyOutputs: Sendable {
    package var name: String
    /// Its `dir` as written (`.` without one), and that directory here.
    package var directory: String
    package var workingDirectory: String
    package var patterns: [String]
  }

  /// The task's environment: base, then the task's `env` with dependency outputs filled in.
  package func environment() -> [String: String] {
    var result = baseEnvironment
    for entry in task.environment {
      if entry.origin == .unset {
        result[entry.name] = nil
        continue
      }
      result[entry.name] = entry.value.render { name, key in
        (inputs[name] as? any OutputProviding)?.outputs[key]
      }
    }
    return result
  }
}
