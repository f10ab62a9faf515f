import Foundation
import Synchronization
import Testing

@testable import RunnerCache

/// Two runners in one directory: the second waits (saying so) or fails with --no-wait.
@Suite struct RunLockTests {
  @Test func secondRunnerFailsWithNoWaitAndWaitsOtherwise() async throws {
    let harness = try RunHarness("tasks:\n  t:\n    run: 'true'\n")
    let first = try await RunLock.acquire(directory: harness.stateDirectory, wait: true)
    await #expect(throws: CacheError.self) {
      _ = try await RunLock.acquire(directory: harness.stateDirectory, wait: false)
    }
    let announced = Mutex<String?>(nil)
    let waiter = Task {
      try await RunLock.acquire(directory: harness.stateDirectory, wait: true) { holder in
        announced.withLock { $0 = holder }
      }
    }
    // Waits for the announcement itself, not for a clock: under load it can take a while.
    for _ in 0..<1000 where announced.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(10)) }
    #expect(announced.withLock { $0 } == "another runner (pid \(getpid()))")
    withExtendedLifetime(first) {}
    _ = consume first
    let second = try await waiter.value
    #expect(second.path.hasSuffix(".runner/lock"))
  }

  @Test func concurrentRunsKeepTheStateSound() async throws {
    let harness = try RunHarness(
      """
      tasks:
        a:
          run: sleep 0.2 && cat in.txt > out.txt
          sources: [in.txt]
          outputs: [out.txt]
      """)
    try harness.write("in.txt", "x\n")
    async let one = harness.runCached()
    async let two = harness.runCached()
    let runs = try await [one, two]
    // One ran; the other waited for the lock and found the task up to date.
    #expect(runs.map { $0.ran.count }.sorted() == [0, 1])
    #expect(runs.allSatisfy { $0.store.warnings.isEmpty })
    #expect(try await harness.runCached().ran == [])
  }
}
