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
