import Glibc
import RunnerBasics
import Synchronization

/// Where the scheduler waits for a job slot that tools hold: a thread of its own sleeps in
/// `poll` on the descriptors a returned token makes readable, and wakes the waiters when one
/// does, or when `wake` says a slot came free.
final class SlotWatcher: Sendable {
  private struct State {
    var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    var next: UInt64 = 0
    var started = false
    var closed = false
    /// The descriptors to watch while someone waits, from the latest waiter.
    var watched: (@Sendable () -> [Int32])?
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
        let start = state.withLock { state -> Bool? in
          if state.closed { return nil }
          state.waiters[id] = continuation
          state.watched = watched
          defer { state.started = true }
          return !state.started
        }
        guard let start else { return continuation.resume() }
        // Registered first, then checked: a slot freed in between finds the waiter.
        if ready() || Task.isCancelled { return resume(id) }
        if start, !DetachedThread.start({ self.loop() }) {
          // No thread: the caller retries as soon as anything changes (`wake`).
          state.withLock { $0.started = false }
        }
        wakeup.signal()
      }
    } onCancel: {
      resume(id)
    }
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
    state.withLock { $0.closed = true }
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
      let (closed, watched) = state.withLock { ($0.closed, $0.watched) }
      if closed { return }
      var fds = [pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0)]
      if let watched { fds += watched().map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) } }
      // Without an eventfd, look again now and then for what to watch.
      let count = poll(&fds, nfds_t(fds.count), wakeup.descriptor < 0 ? 50 : -1)
      wakeup.drain()
      if count > 0, fds.dropFirst().contains(where: { $0.revents != 0 }) { wake() }
    }
  }
}
