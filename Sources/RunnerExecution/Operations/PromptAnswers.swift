import RunnerEvents
import RunnerModel

/// What the person at the terminal answered to the run's `prompt:`s, asked before it starts.
/// A task with a prompt runs only when confirmed; otherwise it fails with the reason.
package struct PromptAnswers: Sendable {
  /// Nodes whose prompt was answered yes (or `--yes`).
  package var confirmed: Set<String> = []
  /// Why a prompt has no yes, by node: declined, or no terminal to ask at.
  package var refusals: [String: String] = [:]

  package init() {}

  func refusal(of task: TaskDefinition) -> String? {
    guard let prompt = task.prompt, !confirmed.contains(task.name) else { return nil }
    return refusals[task.name] ?? "not confirmed: '\(prompt)'"
  }
}

/// A task whose prompt had no yes: it fails with the reason, and runs nothing.
struct RefusedOperation: TaskOperation {
  let reason: String

  func conclude(_ context: OperationContext) -> Conclusion { .run(self) }

  func run(_ context: OperationContext) async throws(TaskFailure) -> any OperationResult {
    throw .message(reason)
  }
}
