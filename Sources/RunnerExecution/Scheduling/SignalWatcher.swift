import CRunnerShim
import Dispatch
import Glibc
import Synchronization

/// Turns SIGINT, SIGTERM, SIGHUP (the terminal closed) and SIGQUIT into cancellation of the
/// run: the first cancels it (tasks get SIGTERM, then SIGKILL after the grace period; the state
/// is saved), the second skips the grace period. The exit status is 128 + the first signal.
/// SIGTSTP (Ctrl-Z) calls `onSuspend`, which stops the run's tasks and runner, and continues
/// them when runner is continued.
package final class SignalWatcher {
  private let sources: [any DispatchSourceSignal]
  private let received = SignalLog()

  /// - Parameters:
  ///   - onFirst: cancel the run.
  ///   - onSecond: kill what is left now.
  ///   - onSuspend: stop the run's processes and runner; returns when continued.
  package init(
    onFirst: @escaping @Sendable (Int32) -> Void, onSecond: @escaping @Sendable () -> Void,
    onSuspend: (@Sendable () -> Void)? = nil
  ) {
    var sources: [any DispatchSourceSignal] = []
    let received = self.received
    if let onSuspend, !Self.ignoredAtStart.contains(SIGTSTP) {
      Self.ignoreOnce(SIGTSTP)
      let source = DispatchSource.makeSignalSource(signal: SIGTSTP, queue: .global())
      source.setEventHandler(handler: onSuspend)
      source.resume()
      sources.append(source)
    }
    for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
      // A signal ignored when runner started stays ignored (`nohup runner`), as make and the
      // shell do.
      if Self.ignoredAtStart.contains(number) { continue }
      Self.ignoreOnce(number)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler {
        let count = received.withLock {
          $0.append(number)
          return $0.count
        }
        if count == 1 { onFirst(number) } else { onSecond() }
      }
      source.resume()
      sources.append(source)
    }
    self.sources = sources
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
  package var firstSignal: Int32? { received.withLock { $0.first } }

  deinit {
    for source in sources { source.cancel() }
  }
}

/// The signals received so far, shared with the handlers.
final class SignalLog: Sendable {
  private let signals = Mutex<[Int32]>([])

  func withLock<T>(_ body: (inout [Int32]) -> T) -> T {
    signals.withLock { body(&$0) }
  }
}
