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
    /// Called every 50 ms until it returns false.
    var tick: (@Sendable () -> Bool)?
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
      if !state.closed { state.tick = tick }
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
    while true {
      let (closed, watched, tick) = state.withLock { ($0.closed, $0.watched, $0.tick) }
      if closed { return }
      var fds = [pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0)]
      if let watched { fds += watched().map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) } }
      // Without an eventfd, look again now and then for what to watch.
      let count = poll(&fds, nfds_t(fds.count), tick != nil || wakeup.descriptor < 0 ? 50 : -1)
      wakeup.drain()
      if count > 0, fds.dropFirst().contains(where: { $0.revents != 0 }) { wake() }
      if count == 0, let tick, !tick() {
        state.withLock { state in
          // A newer tick set meanwhile stays.
          if state.tick != nil { state.tick = nil }
        }
      }
    }
  }
}
