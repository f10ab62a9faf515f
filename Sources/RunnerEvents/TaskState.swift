/// The observable states of a task, after Apple's Operation.
package enum TaskState: String, Sendable, CaseIterable {
  /// Waiting for dependencies (or for its readiness gates).
  case pending
  /// Free to start; waiting for a concurrency slot or a resource.
  case ready
  case executing
  case succeeded
  case failed
  /// Never started, or stopped, because the run stopped (fail-fast, interrupt).
  case cancelled
  /// Not run because a dependency failed (`--keep-going`).
  case skipped

  package var isFinal: Bool {
    switch self {
    case .succeeded, .failed, .cancelled, .skipped: return true
    case .pending, .ready, .executing: return false
    }
  }
}

extension TaskState {
  /// How every reason of a task skipped by its condition begins (a dependency's failure reads
  /// `'NAME' failed`): the event log tells the two apart by it.
  package static let conditionReasonPrefix = "if: "

  /// The word the event log gives a skipped task's reason: `condition` or `dependency`.
  package static func skipKind(ofReason reason: String?) -> String {
    reason?.hasPrefix(conditionReasonPrefix) ?? false ? "condition" : "dependency"
  }
}
