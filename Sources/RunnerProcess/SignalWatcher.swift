import CRunnerShim
import Dispatch
import Glibc
import Synchronization

/// Turns SIGINT, SIGTERM, SIGHUP (the terminal closed) and SIGQUIT into cancellation of the
/// run: the first cancels it (tasks get SIGTERM, then SIGKILL after the grace period; the state
/// is saved), the second skips the grace period. The exit status is 128 + the first signal.
/// SIGTSTP (Ctrl-Z) calls `onSuspend`, which stops the run's tasks and runner, and continues
/// them when runner is continued.
///
/// The same signal again within `window` of the one counted is the same interrupt delivered
/// twice (`timeout(1)` sends it to runner and then to runner's process group), not a second one.
package final class SignalWatcher: Sendable {
  /// How close a repeated signal must follow to count as the same one.
  package static let window: Duration = .milliseconds(250)
  private let received: SignalLog
  private let token: Int
  private let hub: SignalHub

  /// - Parameters:
  ///   - onFirst: cancel the run.
  ///   - onSecond: kill what is left now.
  ///   - onSuspend: stop the run's processes and runner; returns when continued.
  ///   - hub: where the signals come from (a test hands its own, which listens to none).
  package init(
    onFirst: @escaping @Sendable (Int32) -> Void, onSecond: @escaping @Sendable () -> Void,
    onSuspend: (@Sendable () -> Void)? = nil, hub: SignalHub = .shared
  ) {
    let received = SignalLog()
    self.received = received
    self.hub = hub
    token = hub.register(
      { number in
        let now = ContinuousClock.now
        let count = received.withLock { log -> Int? in
          // Closed after the hub handed it this signal: the signal goes on as if it had come
          // a moment later, to the next watcher.
          if log.closed { return nil }
          if let last = log.entries.last, last.number == number, now - last.time < SignalWatcher.window { return 0 }
          log.entries.append((number, now))
          return log.entries.count
        }
        guard let count else { return hub.deliver(number) }
        if count == 1 { onFirst(number) } else if count > 1 { onSecond() }
      }, suspend: onSuspend)
  }

  /// Stops watching, and says the first signal received, if any. A signal that comes after
  /// goes to the next watcher (or waits for one): none is lost in the time between a run's
  /// last look at its watcher and the watcher's end (`--watch` makes one per run).
  package func close() -> Int32? {
    hub.unregister(token)
    return received.withLock { log in
      log.closed = true
      return log.entries.first?.number
    }
  }

  /// Sets a signal to SIG_IGN (for its dispatch source) the first time only: once libdispatch
  /// has put its handler in place, a second `signal()` would replace it and the sources of a
  /// later watcher (`--watch` makes one per run) would never fire.
  static func ignoreOnce(_ number: Int32) {
    let first = ignored.withLock { $0.insert(number).inserted }
    if first { signal(number, SIG_IGN) }
  }

  private static let ignored = Mutex<Set<Int32>>([])

  /// The signals ignored when the process started; `Entrypoint` calls `recordStart` first.
  nonisolated(unsafe) static var ignoredAtStart: Set<Int32> = []

  /// Notes which of the run's signals were ignored at start, and lets SIGQUIT terminate runner
  /// (the Swift runtime's handler printed a crash backtrace and went on) until a run watches it.
  package static func recordStart() {
    for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP] {
      var old = sigaction()
      sigaction(number, nil, &old)
      // SIG_IGN is handler value 1 on Linux.
      let handler = old.__sigaction_handler.sa_handler.map { unsafeBitCast($0, to: Int.self) }
      if handler == 1 {
        ignoredAtStart.insert(number)
        runner_keep_ignored(number)
      }
    }
    if !ignoredAtStart.contains(SIGQUIT) { signal(SIGQUIT, SIG_DFL) }
  }

  /// The first signal received, if any.
  package var firstSignal: Int32? { received.withLock { $0.entries.first?.number } }

  deinit { hub.unregister(token) }
}

/// One dispatch source per signal for the life of the process, handing each signal to the
/// newest watcher. Watchers come and go (`--watch` has one between runs and one per run); a
/// signal that arrives while none is there waits for the next, rather than being lost to the
/// moment between two of them.
package final class SignalHub: Sendable {
  package static let shared = SignalHub()

  private struct Watcher {
    var token: Int
    var handle: @Sendable (Int32) -> Void
    var suspend: (@Sendable () -> Void)?
  }

  private struct State {
    var watchers: [Watcher] = []
    var next = 0
    var pending: [Int32] = []
    /// Kept for the life of the process.
    var sources: [Kept] = []
    var started = false
    var suspending = false
  }

  private let state = Mutex(State())
  /// Whether it takes the process's signals (false: only what `deliver` is given).
  private let listening: Bool

  package init(listening: Bool = true) {
    self.listening = listening
  }

  func register(_ handle: @escaping @Sendable (Int32) -> Void, suspend: (@Sendable () -> Void)?) -> Int {
    let (token, pending, start, startSuspend) = state.withLock { state in
      state.next += 1
      state.watchers.append(Watcher(token: state.next, handle: handle, suspend: suspend))
      defer {
        state.pending = []
        state.started = true
        if suspend != nil { state.suspending = true }
      }
      return (state.next, state.pending, !state.started, suspend != nil && !state.suspending)
    }
    if start, listening { listen(to: [SIGINT, SIGTERM, SIGHUP, SIGQUIT]) }
    if startSuspend, listening { listen(to: [SIGTSTP]) }
    for number in pending { handle(number) }
    return token
  }

  func unregister(_ token: Int) {
    state.withLock { $0.watchers.removeAll { $0.token == token } }
  }

  private func listen(to numbers: [Int32]) {
    var sources: [any DispatchSourceSignal] = []
    for number in numbers {
      // A signal ignored when runner started stays ignored (`nohup runner`), as make and the
      // shell do.
      if SignalWatcher.ignoredAtStart.contains(number) { continue }
      SignalWatcher.ignoreOnce(number)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { [self] in deliver(number) }
      source.resume()
      sources.append(source)
    }
    let kept = Kept(sources: sources)
    state.withLock { $0.sources.append(kept) }
  }

  /// Dispatch sources, only ever held (never touched again once resumed).
  private final class Kept: @unchecked Sendable {
    let sources: [any DispatchSourceSignal]
    init(sources: [any DispatchSourceSignal]) { self.sources = sources }
  }

  /// Hands a signal to the newest watcher, or keeps it for the next one.
  package func deliver(_ number: Int32) {
    if number == SIGTSTP {
      let suspend = state.withLock { $0.watchers.last { $0.suspend != nil }?.suspend }
      // No watcher stops the run's processes: stop as SIGTSTP would have.
      if let suspend { suspend() } else { raise(SIGSTOP) }
      return
    }
    let handle = state.withLock { state -> (@Sendable (Int32) -> Void)? in
      guard let newest = state.watchers.last else {
        state.pending.append(number)
        return nil
      }
      return newest.handle
    }
    handle?(number)
  }
}

/// The signals counted so far and when each came, shared with the handlers; closed once its
/// watcher is.
final class SignalLog: Sendable {
  typealias Entry = (number: Int32, time: ContinuousClock.Instant)
  struct Log {
    var entries: [Entry] = []
    var closed = false
  }
  private let signals = Mutex(Log())

  func withLock<T>(_ body: (inout Log) -> T) -> T {
    signals.withLock { body(&$0) }
  }
}
