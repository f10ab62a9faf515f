import RunnerBasics
import RunnerEvents
import RunnerModel
import RunnerProcess

/// A task with `if:`: the condition decides, when the task's turn comes, whether it runs. A
/// false condition ends the task `skipped` (reason "condition"); its dependents run as if it
/// had succeeded without outputs.
///
/// An expression is decided on the scheduler's thread; a command runs as the task's script
/// would (its shell, directory and environment) with its output discarded: exit 0 runs the task.
struct ConditionalOperation: TaskOperation {
  let condition: TaskCondition
  let inner: any TaskOperation
  let shell: [String]
  let processes: any ProcessRunning

  func conclude(_ context: OperationContext) -> Conclusion {
    guard case .expression(let expression) = condition else { return .run(self) }
    guard Self.holds(expression, context) else { return .finished(ConditionSkipped(condition: condition)) }
    return inner.conclude(context)
  }

  func run(_ context: OperationContext) async throws(TaskFailure) -> any OperationResult {
    switch condition {
    case .expression(let expression):
      guard Self.holds(expression, context) else { return ConditionSkipped(condition: condition) }
    case .command(let command):
      let outcome = try await Self.check(command, shell: shell, context, processes: processes)
      guard outcome.isSuccess else { return ConditionSkipped(condition: condition) }
    }
    switch inner.conclude(context) {
    case .finished(let result): return result
    case .run(let operation): return try await operation.run(context)
    }
  }

  /// Runs `command` as the task's script would (its shell, directory and environment), its
  /// output discarded: an `if:` command's, a precondition's.
  static func check(_ command: String, shell: [String], _ context: OperationContext, processes: any ProcessRunning)
    async throws(TaskFailure) -> ProcessOutcome
  {
    let direct = ShellSetting.mayBypass(shell) ? CommandSplitter.directArguments(command) : nil
    let spec = ProcessSpec(
      arguments: direct ?? shell + [command], environment: context.environment(),
      workingDirectory: context.workingDirectory)
    let outcome: ProcessOutcome
    do {
      outcome = try await processes.run(spec, sink: DiscardingSink(), grace: context.grace)
    } catch {
      throw .spawn(command, error)
    }
    if Task.isCancelled { throw .cancelled }
    return outcome
  }

  static func holds(_ expression: ConditionExpression, _ context: OperationContext) -> Bool {
    var environment: [String: String]?
    return expression.isTrue { reference in
      switch reference {
      case .output(let task, let key): return (context.inputs[task] as? any OutputProviding)?.outputs[key]
      case .env(let name):
        if environment == nil { environment = context.environment() }
        return environment?[name]
      case .param, .matrix, .runner: return nil
      }
    }
  }
}

/// What a task whose condition was false hands on: nothing, and a fixed digest.
package struct ConditionSkipped: FingerprintProviding {
  package var condition: TaskCondition
  package var fingerprint: String? { nil }
  package var outputDigest: String { "condition-false" }

  /// The state's reason, as events and the console show it.
  package var reason: String { TaskState.conditionReasonPrefix + "\(condition) is false" }
}
