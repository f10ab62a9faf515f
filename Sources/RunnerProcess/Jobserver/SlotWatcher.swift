import Glibc
import RunnerBasics
import Synchronization

/// Where the scheduler waits for a job slot that tools hold: a thread of its own sleeps in
/// `poll` on the descriptors a returned token makes readable, and wakes the waiters when one
/// does, or when `wake` says a slot came free. The same thread calls a `tick` every 50 ms
/// while one is set (the jobserver tops up its pools).
final class SlotWatcher: Sendable {
  private struct State {
    var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    var next: UInt64 = 0
    var started = false
    var closed = false
    /// The descriptors to watch while someone waits, from the latest waiter.
    var watched: (@Sendable () -> [Int32])?
    /// Called every 50 ms until it returns false; `ticks` counts the ones set, so that a tick
    /// that ended clears only itself.
    var tick: (@Sendable () -> Bool)?
    var ticks = 0
  }

  private let state = Mutex(State())
  private let wakeup = Wakeup()

  /// Returns once `ready()` holds, a descriptor `watched()` lists turns readable, `wake` is
  /// called, or the caller is cancelled.
  func wait(until ready: @Sendable () -> Bool, watching watched: @escaping @Sendable () -> [Int32]) async {
    let id = state.withLock { state in
      state.next += 1
      return state.next
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let registered = state.withLock { state -> Bool in
          if state.closed { return false }
          state.waiters[id] = continuation
          state.watched = watched
          return true
        }
        guard registered else { return continuation.resume() }
        // Registered first, then checked: a slot freed in between finds the waiter.
        if ready() || Task.isCancelled { return resume(id) }
        // Without a thread, the caller retries as soon as anything changes (`wake`).
        startThread()
      }
    } onCancel: {
      resume(id)
    }
  }

  /// Calls `tick` every 50 ms on the watcher's thread until it returns false.
  func startTicking(_ tick: @escaping @Sendable () -> Bool) {
    let closed = state.withLock { state in
      if !state.closed {
        state.tick = tick
        state.ticks += 1
      }
      return state.closed
    }
    if !closed { startThread() }
  }

  /// Starts the thread if it is not running, and has it look again at what to do.
  private func startThread() {
    let start = state.withLock { state in
      defer { state.started = true }
      return !state.started
    }
    if start, !DetachedThread.start({ self.loop() }) { state.withLock { $0.started = false } }
    wakeup.signal()
  }

  /// Whether the scheduler waits for a slot.
  var hasWaiters: Bool { state.withLock { !$0.waiters.isEmpty } }

  /// A slot may be free: every waiter goes to look.
  func wake() {
    let waiting = state.withLock { state in
      defer {
        state.waiters = [:]
        state.watched = nil
      }
      return Array(state.waiters.values)
    }
    for continuation in waiting { continuation.resume() }
  }

  func close() {
    state.withLock { state in
      state.closed = true
      state.tick = nil
    }
    wake()
    wakeup.signal()
  }

  private func resume(_ id: UInt64) {
    state.withLock { state in
      defer { if state.waiters.isEmpty { state.watched = nil } }
      return state.waiters.removeValue(forKey: id)
    }?.resume()
  }

  private func loop() {
    let period = Duration.milliseconds(50)
    var due = ContinuousClock.now + period
    while true {
      let (closed, watched, tick, ticks) = state.withLock { ($0.closed, $0.watched, $0.tick, $0.ticks) }
      if closed { return }
      var fds = [pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0)]
      if let watched { fds += watched().map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) } }
      // A tick when it is due, however often the eventfd wakes the thread; without an
      // eventfd, a look now and then at what to watch.
      var timeout: Int32 = -1
      if tick != nil || wakeup.descriptor < 0 {
        let left = due - ContinuousClock.now
        timeout = Int32(
          clamping: max(0, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
      }
      let count = poll(&fds, nfds_t(fds.count), timeout)
      wakeup.drain()
      if count > 0, fds.dropFirst().contains(where: { $0.revents != 0 }) { wake() }
      guard ContinuousClock.now >= due else { continue }
      due = ContinuousClock.now + period
      if let tick, !tick() {
        state.withLock { state in
          if state.ticks == ticks { state.tick = nil }
        }
      }
    }
  }
}
