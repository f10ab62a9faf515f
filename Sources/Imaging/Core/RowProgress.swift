#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How many top rows of an image a producer on another thread (a decoder) has finished,
/// so that kernels can start on them before the rest exists.
///
/// Consumers block in `waitForRow(_:)`; they wake when rows arrive, when the producer ends
/// (finished, failed or stopped), and every few milliseconds to notice task cancellation.
final class RowProgress: @unchecked Sendable {
  // @unchecked: every mutable field is guarded by `mutex`.
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  private var ready = 0
  private var ended = false
  private var stopping = false
  private var failure: ImagingError?
  /// The lowest row a blocked consumer waits for (Int.max when none), so that publishing rows
  /// nobody waits for costs no wake-up: an encoder waits for 16 rows while the bands finish
  /// them one at a time.
  private var wanted = Int.max

  /// How long a waiting consumer sleeps before it checks for cancellation again.
  static let pollInterval = 2_000_000  // nanoseconds

  init() {
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(changed, nil)
  }

  deinit {
    pthread_cond_destroy(changed)
    pthread_mutex_destroy(mutex)
    changed.deallocate()
    mutex.deallocate()
  }

  // MARK: producer

  /// Rows `0..<rows` are complete.
  func publish(rows: Int) {
    locked {
      ready = max(ready, rows)
      if ready > wanted {
        wanted = Int.max
        pthread_cond_broadcast(changed)
      }
    }
  }

  /// The producer has ended, with `error` if it failed.
  func end(_ error: ImagingError? = nil) {
    locked {
      failure = error
      ended = true
      pthread_cond_broadcast(changed)
    }
  }

  /// Whether a consumer has asked the producer to stop.
  var shouldStop: Bool { locked { stopping } }

  /// How many top rows are complete so far.
  var rowsReady: Int { locked { ready } }

  // MARK: consumer

  /// Blocks until row `row` is complete.
  ///
  /// - Returns: false when it never will be (the producer failed or stopped) or the current
  ///   task was cancelled; the caller should then return early.
  func waitForRow(_ row: Int) -> Bool {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    while ready <= row {
      if ended || Task.isCancelled { return false }
      var deadline = timespec()
      clock_gettime(CLOCK_REALTIME, &deadline)
      deadline.tv_nsec += Self.pollInterval
      if deadline.tv_nsec >= 1_000_000_000 {
        deadline.tv_sec += 1
        deadline.tv_nsec -= 1_000_000_000
      }
      // Every waiter wakes on a broadcast and registers again while it still waits.
      wanted = min(wanted, row)
      pthread_cond_timedwait(changed, mutex, &deadline)
    }
    return true
  }

  /// Asks the producer to stop at its next check.
  func stop() {
    locked { stopping = true }
  }

  /// Blocks until the producer has ended.
  ///
  /// - Returns: its error, if it failed.
  @discardableResult
  func waitUntilEnded() -> ImagingError? {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    while !ended { pthread_cond_wait(changed, mutex) }
    return failure
  }

  private func locked<Result>(_ body: () -> Result) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body()
  }
}
