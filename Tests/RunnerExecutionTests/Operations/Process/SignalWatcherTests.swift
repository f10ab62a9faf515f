import Glibc
import Synchronization
import Testing

@testable import RunnerProcess

/// Signals handed from one watcher to the next, on a hub of the test's own (it takes none of
/// the process's signals).
@Suite struct SignalWatcherTests {
  final class Seen: Sendable {
    let numbers = Mutex<[Int32]>([])
    func add(_ number: Int32) { numbers.withLock { $0.append(number) } }
    var all: [Int32] { numbers.withLock { $0 } }
  }

  /// A run's watcher closed at its end says what it got; a signal after that is not spent on
  /// it but waits for the next watcher (`--watch` watching again), which gets it at once.
  @Test func aSignalAfterAWatcherClosedGoesToTheNextOne() {
    let hub = SignalHub(listening: false)
    let run = Seen()
    let next = Seen()
    let runWatcher = SignalWatcher(onFirst: run.add, onSecond: {}, hub: hub)
    hub.deliver(SIGTERM)
    #expect(run.all == [SIGTERM])
    #expect(runWatcher.close() == SIGTERM)
    hub.deliver(SIGINT)
    #expect(run.all == [SIGTERM], "closed: the signal is not its")
    let nextWatcher = SignalWatcher(onFirst: next.add, onSecond: {}, hub: hub)
    #expect(next.all == [SIGINT])
    #expect(nextWatcher.close() == SIGINT)
    withExtendedLifetime(runWatcher) {}
  }

  /// Without a signal, closing says none, and the watcher gets nothing later.
  @Test func aWatcherClosedBeforeAnySignalSaysNone() {
    let hub = SignalHub(listening: false)
    let seen = Seen()
    let watcher = SignalWatcher(onFirst: seen.add, onSecond: {}, hub: hub)
    #expect(watcher.close() == nil)
    hub.deliver(SIGHUP)
    #expect(seen.all.isEmpty)
    #expect(watcher.firstSignal == nil)
  }
}
