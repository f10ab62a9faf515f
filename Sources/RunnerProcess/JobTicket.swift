import Synchronization

/// The state of one `run` shared between the calling Task (which may cancel) and the reactor.
///
/// Resolves the race between cancellation and spawn without leaving records behind: whoever
/// comes second acts.
final class JobTicket: Sendable {
  let id: UInt64
  private let state = Mutex(State())

  private struct State {
    var cancelled = false
    var started = false
    var finished = false
  }

  init(id: UInt64) {
    self.id = id
  }

  /// Marks the run cancelled; true when the reactor must now signal a running child.
  func cancel() -> Bool {
    state.withLock { state in
      state.cancelled = true
      return state.started && !state.finished
    }
  }

  /// Called by the reactor before spawning; false when the run was cancelled first.
  func start() -> Bool {
    state.withLock { state in
      if state.cancelled { return false }
      state.started = true
      return true
    }
  }

  func finish() {
    state.withLock { $0.finished = true }
  }
}
