import RunnerBasics
import Synchronization

/// A clock that moves only when told, so a test of a timeout, a retry's backoff or a stamp's
/// age neither waits nor races the machine.
///
/// `automatic`: every sleep moves the one clock to its own end and returns at once (a retry's
/// backoff, a timeout that must fire), so in a run with a timeout and another sleep the
/// timeout fires at once too. Otherwise a sleep waits until `advance(by:)` passes its end, and
/// `sleepers` says how many wait: a test that never advances leaves them waiting.
package final class TestClock: RunClock {
  private struct Sleeper {
    var id: Int
    var deadline: Duration
    var continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var elapsed: Duration = .zero
    var sleeps: [Duration] = []
    var sleepers: [Sleeper] = []
    var cancelled: Set<Int> = []
    var nextID = 0
  }

  private let state = Mutex(State())
  private let origin = ContinuousClock.now
  private let wallOrigin: Int64
  private let automatic: Bool

  /// - Parameter wall: the wall time at the start, in nanoseconds since the epoch.
  package init(automatic: Bool = false, wall: Int64 = 1_800_000_000 * 1_000_000_000) {
    self.automatic = automatic
    wallOrigin = wall
  }

  package var now: ContinuousClock.Instant { origin.advanced(by: state.withLock { $0.elapsed }) }

  package var wallNanoseconds: Int64 { wallOrigin + state.withLock { $0.elapsed }.nanoseconds }

  /// How far the clock has moved.
  package var elapsed: Duration { state.withLock { $0.elapsed } }

  /// Every sleep asked for, in order.
  package var sleeps: [Duration] { state.withLock { $0.sleeps } }

  /// How many sleeps wait for the clock to move.
  package var sleepers: Int { state.withLock { $0.sleepers.count } }

  package func sleep(for duration: Duration) async throws {
    try Task.checkCancellation()
    if automatic {
      state.withLock {
        $0.sleeps.append(duration)
        $0.elapsed += duration
      }
      await Task.yield()
      try Task.checkCancellation()
      return
    }
    let id = state.withLock { state -> Int in
      state.sleeps.append(duration)
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let resume = state.withLock { state -> Bool in
          if state.cancelled.remove(id) != nil { return true }
          if duration <= .zero { return true }
          state.sleepers.append(Sleeper(id: id, deadline: state.elapsed + duration, continuation: continuation))
          return false
        }
        if resume {
          if Task.isCancelled {
            continuation.resume(throwing: CancellationError())
          } else {
            continuation.resume()
          }
        }
      }
    } onCancel: {
      let waiting = state.withLock { state -> Sleeper? in
        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
          state.cancelled.insert(id)
          return nil
        }
        return state.sleepers.remove(at: index)
      }
      waiting?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Moves the clock on and wakes every sleep that ends by then.
  package func advance(by duration: Duration) {
    let due = state.withLock { state -> [Sleeper] in
      state.elapsed += duration
      let due = state.sleepers.filter { $0.deadline <= state.elapsed }
      state.sleepers.removeAll { $0.deadline <= state.elapsed }
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
  }

  /// Waits (a bounded while, on the machine's clock) until `count` sleeps wait on this one.
  ///
  /// - Returns: whether they came.
  package func waitForSleepers(_ count: Int = 1) async -> Bool {
    for _ in 0..<5000 {
      if sleepers >= count { return true }
      try? await Task.sleep(for: .milliseconds(2))
    }
    return sleepers >= count
  }
}
