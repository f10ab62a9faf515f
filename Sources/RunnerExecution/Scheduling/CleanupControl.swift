import Synchronization

/// Cleanups (`always: true`) run after the run was stopped, so their attempts run outside the
/// scheduler's cancelled task group (an unstructured task each). A second interrupt reaches
/// them here: it cancels those running and tells the loop to drop those not started.
package final class CleanupControl: Sendable {
  private struct State {
    var abandoned = false
    var running: [Int: Task<Scheduler.Completion, Never>] = [:]
  }

  private let state = Mutex(State())

  package init() {}

  package var abandoned: Bool { state.withLock { $0.abandoned } }

  /// A second Ctrl-C (or SIGTERM): running cleanups are cancelled, pending ones skipped.
  package func abandon() {
    let running = state.withLock { state in
      state.abandoned = true
      return Array(state.running.values)
    }
    for task in running { task.cancel() }
  }

  /// Runs a cleanup's attempt in a task of its own, unless the cleanups were abandoned.
  func run(_ task: Int, _ body: @escaping @Sendable () async -> Scheduler.Completion) async -> Scheduler.Completion {
    let handle = Task { await body() }
    let abandoned = state.withLock { state in
      state.running[task] = handle
      return state.abandoned
    }
    if abandoned { handle.cancel() }
    let completion = await handle.value
    _ = state.withLock { $0.running.removeValue(forKey: task) }
    return completion
  }
}
