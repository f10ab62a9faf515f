import Foundation
import RunnerBasics
import TestSupport
import Testing

@Suite struct SchedulerTests {
  /// N independent tasks that each sleep a little, so they overlap when allowed to.
  func wide(_ count: Int, command: String = "sleep 0.2") -> String {
    "tasks:\n" + (0..<count).map { "  t\($0): \(command)\n" }.joined()
  }

  @Test(arguments: [1, 2, 3])
  func concurrencyLimitIsReachedAndNeverExceeded(jobs: Int) async throws {
    let harness = try RunHarness(wide(8))
    let (summary, observer) = try await harness.run(jobs: jobs)
    #expect(summary.succeeded)
    #expect(observer.peakConcurrency == jobs)
  }

  @Test func serialRunFollowsPriorityThenCriticalPathThenFileOrder() async throws {
    let harness = try RunHarness(
      """
      tasks:
        a: "true"
        b: "true"
        c: {run: "true", priority: high}
        d: {deps: [b], run: "true"}
        e: {run: "true", priority: low}
      """)
    let (summary, observer) = try await harness.run(jobs: 1)
    #expect(summary.succeeded)
    #expect(observer.peakConcurrency == 1)
    // c: high priority; b: on the longest path (b -> d); then a; d once b is done; e low.
    #expect(observer.startOrder.map { harness.graph[$0].name } == ["c", "b", "a", "d", "e"])
  }

  @Test func diamondDependencyRunsOnce() async throws {
    let harness = try RunHarness(
      """
      tasks:
        base: echo ran >> count.txt
        left: {deps: [base], run: "true"}
        right: {deps: [base], run: "true"}
        top: {deps: [left, right], run: "true"}
      """)
    let (summary, _) = try await harness.run(jobs: 4)
    #expect(summary.counts[.succeeded] == 4)
    #expect(harness.file("count.txt") == "ran\n")
  }

  @Test func failFastKillsSiblingAndGrandchildAndCancelsTheRest() async throws {
    let marker = "runner-ff-\(UUID().uuidString.prefix(8))"
    let harness = try RunHarness(
      """
      tasks:
        sleeper: sh -c 'sleep 300 & sleep 300' \(marker)
        failing: sh -c 'sleep 0.3; exit 7'
        later: {deps: [failing], run: "true"}
        blocked: {deps: [sleeper], run: "true"}
      """)
    let (summary, observer) = try await harness.run(jobs: 4, grace: .seconds(2))
    #expect(summary.failures.map(\.task) == [harness.index("failing")])
    #expect(summary.failures.first?.reason == .command("sh -c 'sleep 0.3; exit 7'", .exited(7)))
    #expect(observer.finalState(of: harness.index("sleeper")) == .cancelled)
    #expect(observer.finalState(of: harness.index("later")) == .cancelled)
    #expect(observer.finalState(of: harness.index("blocked")) == .cancelled)
    #expect(await awaitNoProcesses(containing: marker).isEmpty)
  }

  @Test func aSiblingThatExitsBadlyOnSIGTERMIsCancelledNotASecondFailure() async throws {
    let harness = try RunHarness(
      """
      tasks:
        polite: trap 'exit 3' TERM; sleep 300 & wait
        failing: sh -c 'sleep 0.3; exit 7'
      """)
    let (summary, observer) = try await harness.run(jobs: 2, grace: .seconds(2))
    #expect(summary.failures.map(\.task) == [harness.index("failing")])
    #expect(observer.finalState(of: harness.index("polite")) == .cancelled)
  }

  @Test func keepGoingSkipsOnlyDependents() async throws {
    let harness = try RunHarness(
      """
      tasks:
        bad: exit 1
        child: {deps: [bad], run: "true"}
        grandchild: {deps: [child], run: "true"}
        independent: sleep 0.2
        after: {deps: [independent], run: "true"}
      """)
    let (summary, observer) = try await harness.run(jobs: 2, failFast: false)
    #expect(summary.exitCode == 1)
    #expect(observer.finalState(of: harness.index("child")) == .skipped)
    #expect(observer.finalState(of: harness.index("grandchild")) == .skipped)
    #expect(observer.finalState(of: harness.index("independent")) == .succeeded)
    #expect(observer.finalState(of: harness.index("after")) == .succeeded)
  }

  /// On a test clock: the timeout fires when the clock passes it, once the processes are up.
  @Test func timeoutKillsTheGroupAndSaysSo() async throws {
    let marker = "runner-to-\(UUID().uuidString.prefix(8))"
    let harness = try RunHarness("tasks:\n  slow: {run: \"sh -c 'sleep 300 & sleep 300' \(marker)\", timeout: 300ms}\n")
    let clock = TestClock()
    let run = Task { try await harness.run(grace: .milliseconds(500), clock: clock) }
    for _ in 0..<500 where processes(containing: marker).isEmpty { try await Task.sleep(for: .milliseconds(10)) }
    #expect(!processes(containing: marker).isEmpty, "the task's shell is up")
    #expect(await clock.waitForSleepers(1))
    clock.advance(by: .milliseconds(299))
    #expect(clock.sleepers == 1, "not yet")
    clock.advance(by: .milliseconds(1))
    let (summary, _) = try await run.value
    #expect(summary.failures.first?.reason == .timedOut(.milliseconds(300)))
    #expect(await awaitNoProcesses(containing: marker).isEmpty)
  }

  @Test func retriesRunAgainAndEventsCountAttempts() async throws {
    // Fails twice, then succeeds: the counter file holds the attempts.
    let harness = try RunHarness(
      """
      tasks:
        flaky:
          run: echo x >> tries; test $(wc -l < tries) -ge 3
          retries: 3
      """)
    let clock = TestClock(automatic: true)
    let (summary, observer) = try await harness.run(clock: clock)
    #expect(summary.succeeded)
    #expect(harness.file("tries")?.split(separator: "\n").count == 3)
    #expect(clock.sleeps == [.milliseconds(500), .seconds(1)], "the backoff doubles")
    let retries = observer.recorded.compactMap { event -> Int? in
      if case .retrying(let attempt, _, _) = event.kind { return attempt }
      return nil
    }
    #expect(retries == [2, 3])
  }

  /// Every time a run reports is read from its clock: the events, the durations shown and
  /// the summary's, so a test clock that only the backoffs move gives exactly their sums.
  @Test func eventTimesAndDurationsAreOnTheRunsClock() async throws {
    let harness = try RunHarness(
      """
      tasks:
        flaky:
          run: touch made-by-flaky
          retries: 2
      """)
    let processes = ScriptedProcesses([.exited(1), .exited(2), .exited(0)])
    let clock = TestClock(automatic: true)
    let (summary, observer) = try await harness.run(clock: clock, processes: processes)
    #expect(summary.succeeded)
    #expect(summary.duration == .milliseconds(1500))
    let times = Set(observer.recorded.map(\.time))
    #expect(times.isSubset(of: [.zero, .milliseconds(500), .milliseconds(1500)]), "\(times)")
    #expect(times.contains(.milliseconds(1500)))
    let shown = observer.recorded.compactMap { event -> String? in
      if case .state(.succeeded, _, let reason) = event.kind { return reason }
      return nil
    }
    #expect(shown == [formatDuration(.milliseconds(1500))], "the time a task took is the clock's")
  }

  /// Through the process seam: a `wait_for` command and each attempt ask for their process
  /// there, and nothing is started (the file is never made).
  @Test func everyProcessOfARunGoesThroughTheProcessSeam() async throws {
    let harness = try RunHarness(
      """
      tasks:
        flaky:
          run: touch made-by-flaky
          retries: 2
          wait_for: {command: test -d .}
      """)
    let processes = ScriptedProcesses([.exited(0), .exited(1), .exited(2)])
    let clock = TestClock(automatic: true)
    let (summary, _) = try await harness.run(clock: clock, processes: processes)
    #expect(summary.succeeded)
    let arguments = processes.specs.map(\.arguments)
    #expect(arguments.first == ["/bin/sh", "-c", "test -d ."], "the gate first")
    #expect(Array(arguments.dropFirst()) == Array(repeating: ["touch", "made-by-flaky"], count: 3), "\(arguments)")
    #expect(processes.specs.last?.environment["RUNNER_TASK"] == "flaky")
    #expect(clock.sleeps == [.milliseconds(500), .seconds(1)])
    #expect(harness.file("made-by-flaky") == nil, "the stand-in starts nothing")
  }

  @Test func tasksSharingAResourceNeverOverlap() async throws {
    let harness = try RunHarness(
      "tasks:\n" + (0..<4).map { "  db\($0): {run: sleep 0.1, resources: [database]}\n" }.joined()
        + "  other: sleep 0.2\n")
    let (summary, observer) = try await harness.run(jobs: 4)
    #expect(summary.succeeded)
    var holding = Set<Int>()
    var overlap = false
    for (task, state) in observer.transitions where harness.graph[task].name.hasPrefix("db") {
      if state == .executing {
        overlap = overlap || !holding.isEmpty
        holding.insert(task)
      } else if state.isFinal {
        holding.remove(task)
      }
    }
    #expect(!overlap)
    #expect(observer.peakConcurrency == 2)
  }

  @Test func aGateThatNeverHoldsFailsTheTaskNamingTheGate() async throws {
    let harness = try RunHarness(
      "tasks:\n  waits:\n    run: \"true\"\n    wait_for: {file: never-there, timeout: 300ms}\n")
    let clock = TestClock(automatic: true)
    let (summary, _) = try await harness.run(clock: clock)
    #expect(clock.sleeps == Array(repeating: .milliseconds(100), count: 3), "polled until the timeout passed")
    let reason = summary.failures.first?.reason.description ?? ""
    #expect(reason.contains("file 'never-there' did not hold within 300ms"))
  }

  @Test func aGateThatHoldsLetsTheTaskRun() async throws {
    let harness = try RunHarness(
      """
      tasks:
        make-flag: sh -c 'sleep 0.2; touch flag'
        waits:
          run: "true"
          wait_for: [{file: flag, timeout: 5s}, {command: test -f flag}]
      """)
    let (summary, _) = try await harness.run(jobs: 2)
    #expect(summary.succeeded)
  }

  @Test func outputsReachDependentsThroughTheEnvironmentOnly() async throws {
    let harness = try RunHarness(
      #"""
      tasks:
        produce:
          run:
            - echo 'tag=v1.2.3' >> "$RUNNER_OUTPUT"
            - printf 'evil=$(touch pwned)\n' >> "$RUNNER_OUTPUT"
            - printf 'notes<<EOF\nline one\nline two\nEOF\n' >> "$RUNNER_OUTPUT"
        consume:
          deps: [produce]
          env:
            TAG: "${{ deps.produce.outputs.tag }}"
            EVIL: "${{ deps.produce.outputs.evil }}"
            NOTES: "${{ deps.produce.outputs.notes }}"
          run: printf '%s|%s|%s' "$TAG" "$EVIL" "$NOTES" > result
      """#)
    let (summary, _) = try await harness.run()
    #expect(summary.succeeded)
    #expect(harness.file("result") == "v1.2.3|$(touch pwned)|line one\nline two")
    #expect(harness.file("pwned") == nil)
  }

  @Test func oversizedOutputValueFailsClearly() async throws {
    let harness = try RunHarness(
      "tasks:\n  big: head -c 1100000 /dev/zero | tr '\\\\0' x | sed 's/^/k=/' >> \"$RUNNER_OUTPUT\"\n")
    let (summary, _) = try await harness.run()
    #expect(summary.failures.first?.reason.description.contains("invalid $RUNNER_OUTPUT") == true)
  }

  @Test func fiftyMegabytesOfOutputPassThrough() async throws {
    let harness = try RunHarness("tasks:\n  big: head -c 50000000 /dev/zero | tr '\\\\0' 'a' | fold -w 1000\n")
    let observer = RecordingObserver(keepLines: 10)
    let (summary, _) = try await harness.run(observer: observer)
    #expect(summary.succeeded)
    // 50 000 lines of 1000 bytes, each counted with its newline.
    #expect(observer.outputBytes == 50_050_000)
  }

  @Test func nonUTF8BytesAndAMissingFinalNewlinePassThrough() async throws {
    let harness = try RunHarness(
      #"""
      tasks:
        binary: printf 'caf\351\n\377\376 raw\nno newline'
      """#)
    let (summary, observer) = try await harness.run()
    #expect(summary.succeeded)
    #expect(
      observer.output.map(\.bytes) == [
        [0x63, 0x61, 0x66, 0xE9], [0xFF, 0xFE, 0x20, 0x72, 0x61, 0x77], Array("no newline".utf8),
      ])
  }

  @Test func cancellingTheRunStopsEverythingAndLeavesNoProcess() async throws {
    let marker = "runner-cx-\(UUID().uuidString.prefix(8))"
    let harness = try RunHarness(
      "tasks:\n  a: sh -c 'sleep 300 & sleep 300' \(marker)\n  b: sh -c 'trap \"\" TERM; sleep 300' \(marker)\n  c: {deps: [a], run: \"true\"}\n"
    )
    let run = Task { try await harness.run(jobs: 4, grace: .milliseconds(300)) }
    for _ in 0..<200 where processes(containing: marker).count < 3 { try await Task.sleep(for: .milliseconds(10)) }
    run.cancel()
    let (summary, observer) = try await run.value
    #expect(summary.failures.isEmpty)
    #expect(observer.finalState(of: harness.index("a")) == .cancelled)
    #expect(observer.finalState(of: harness.index("b")) == .cancelled)
    #expect(observer.finalState(of: harness.index("c")) == .cancelled)
    #expect(await awaitNoProcesses(containing: marker).isEmpty)
  }

  @Test func stateTransitionsFollowTheOperationLifecycle() async throws {
    let harness = try RunHarness("tasks:\n  a: \"true\"\n  b: {deps: [a], run: \"true\"}\n")
    let (_, observer) = try await harness.run()
    let b = observer.transitions.filter { $0.0 == harness.index("b") }.map(\.1)
    #expect(b == [.ready, .executing, .succeeded])
    let times = observer.recorded.map(\.time)
    #expect(times == times.sorted())
  }
}
