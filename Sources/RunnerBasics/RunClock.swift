import Glibc

/// Time as runner reads it. The scheduler's timeouts, retries and readiness polls, the trust
/// given to file stamps and the age of temporary files all read this seam, so a test moves the
/// clock rather than waiting for it (as ninja's `VirtualFileSystem` keeps a counter for time).
package protocol RunClock: Sendable {
  /// Monotonic time, for deadlines and durations.
  var now: ContinuousClock.Instant { get }
  /// Nanoseconds since the epoch, the time file stamps are in.
  var wallNanoseconds: Int64 { get }
  /// Waits for `duration` of this clock's time.
  ///
  /// - Throws: `CancellationError` when the calling task is cancelled first.
  func sleep(for duration: Duration) async throws
}

/// The machine's clocks.
package struct SystemClock: RunClock {
  package init() {}

  package var now: ContinuousClock.Instant { ContinuousClock.now }

  package var wallNanoseconds: Int64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }

  package func sleep(for duration: Duration) async throws {
    try await Task.sleep(for: duration)
  }
}

extension Duration {
  /// Whole nanoseconds (a `Duration` holds attoseconds).
  package var nanoseconds: Int64 {
    components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
  }
}
