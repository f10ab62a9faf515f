import Foundation
import Testing

@testable import RunnerExecution
@testable import RunnerProcess

/// Real processes. Serialized so the fd-count and leftover checks see only their own children.
@Suite(.serialized)
struct ProcessReactorTests {
  let reactor = ProcessReactor.shared
  typealias Support = ProcessTestSupport

  @Test(arguments: [0, 1, 3, 127, 255])
  func exitCodes(code: Int32) async throws {
    let outcome = try await reactor.run(Support.shell("exit \(code)"), sink: CollectingSink(), grace: .seconds(1))
    #expect(outcome == .exited(code))
  }

  @Test func signalIsReported() async throws {
    let outcome = try await reactor.run(Support.shell("kill -SEGV $$"), sink: CollectingSink(), grace: .seconds(1))
    #expect(outcome == .signaled(11))
    #expect(outcome.description == "signal 11 (SIGSEGV)")
    #expect(ProcessOutcome.exited(3).description == "exit code 3")
  }

  @Test func directExecWithPathLookup() async throws {
    let sink = CollectingSink()
    let spec = ProcessSpec(arguments: ["echo", "hello", "world"], environment: ["PATH": Support.path])
    #expect(try await reactor.run(spec, sink: sink, grace: .seconds(1)) == .exited(0))
    #expect(sink.text(.stdout) == ["hello world"])
    let truth = ProcessSpec(arguments: ["true"], environment: ["PATH": Support.path])
    #expect(try await reactor.run(truth, sink: sink, grace: .seconds(1)) == .exited(0))
  }

  @Test func scriptWithoutShebangRunsUnderSh() async throws {
    let script = FileManager.default.temporaryDirectory.appendingPathComponent("runner-\(UUID().uuidString)").path
    #expect(
      FileManager.default.createFile(
        atPath: script, contents: Data("echo \"from script $1\"\nexit 4\n".utf8), attributes: [.posixPermissions: 0o755]
      ))
    defer { try? FileManager.default.removeItem(atPath: script) }
    let sink = CollectingSink()
    let spec = ProcessSpec(arguments: [script, "arg"], environment: ["PATH": Support.path])
    #expect(try await reactor.run(spec, sink: sink, grace: .seconds(1)) == .exited(4))
    #expect(sink.text(.stdout) == ["from script arg"])
  }

  @Test func linesArriveInOrderWithStreamsAndUnterminatedLast() async throws {
    let sink = CollectingSink()
    let script = "printf 'one\\ntwo\\n'; printf 'err\\n' >&2; printf '\\n'; printf 'last'"
    #expect(try await reactor.run(Support.shell(script), sink: sink, grace: .seconds(1)) == .exited(0))
    #expect(sink.text(.stdout) == ["one", "two", "", "last"])
    #expect(sink.text(.stderr) == ["err"])
    #expect(sink.lines.last == .init(stream: .stdout, bytes: Array("last".utf8), complete: false))
  }

  @Test func nonUTF8BytesPassThrough() async throws {
    let sink = CollectingSink()
    #expect(
      try await reactor.run(Support.shell("printf '\\377\\376a\\000b\\n'"), sink: sink, grace: .seconds(1))
        == .exited(0))
    #expect(sink.lines == [.init(stream: .stdout, bytes: [0xFF, 0xFE, 0x61, 0x00, 0x62], complete: true)])
  }

  @Test func fiveMegabyteLineArrivesIntact() async throws {
    let sink = CollectingSink()
    let script = "head -c 5000000 /dev/zero | tr '\\0' a; echo; echo after"
    #expect(try await reactor.run(Support.shell(script), sink: sink, grace: .seconds(1)) == .exited(0))
    let lines = sink.lines
    #expect(lines.count == 2)
    #expect(lines.first?.bytes.count == 5_000_000)
    #expect(lines.first?.bytes.allSatisfy { $0 == UInt8(ascii: "a") } == true)
    #expect(lines.last?.bytes == Array("after".utf8))
  }

  @Test func fiftyMegabytesWithBoundedBuffering() async throws {
    let sink = CountingSink()
    // No newline at all: the splitter must hand over fragments instead of growing.
    let total = 50 << 20
    #expect(
      try await reactor.run(Support.shell("head -c \(total) /dev/zero"), sink: sink, grace: .seconds(1)) == .exited(0))
    let totals = sink.totals
    #expect(totals.bytes == total)
    #expect(totals.newlines == 0)
    #expect(totals.largest <= LineSplitter.fragmentLimit + ReactorLoop.readBufferSize)
    let lines = CountingSink()
    #expect(
      try await reactor.run(Support.shell("yes | head -c \(total)"), sink: lines, grace: .seconds(1)) == .exited(0))
    #expect(lines.totals.newlines == total / 2)
    #expect(lines.totals.bytes == total / 2)
  }

  /// A task's stdout starts as the kernel's 64 KiB pipe (a resize costs a spawn-bound task); once
  /// it has carried 64 KiB it gets the run's size. The task asks its own stdout: before writing,
  /// and after writing 400 KiB in two writes (the second cannot finish before runner has read
  /// past the first, and grown the pipe).
  @Test func aChattyTasksStdoutPipeGrows() async throws {
    Kernel.setPipeSize(1 << 20)
    let sink = CollectingSink()
    let script = """
      import fcntl, os, sys
      size = lambda: fcntl.fcntl(1, 1032)
      print(size(), file=sys.stderr, flush=True)
      os.write(1, b"x" * 204800)
      os.write(1, b"x" * 204800)
      print(size(), file=sys.stderr, flush=True)
      """
    let spec = ProcessSpec(arguments: ["python3", "-c", script], environment: ["PATH": Support.path])
    #expect(try await reactor.run(spec, sink: sink, grace: .seconds(1)) == .exited(0))
    let sizes = sink.text(.stderr).compactMap { Int($0) }
    #expect(sizes.count == 2, "\(sink.text(.stderr))")
    #expect(sizes.first == 64 << 10)
    #expect(sizes.last == 1 << 20)
  }

  /// `head` writes 8 KiB at a time: after its first MiB the reactor sets its pipe aside for a
  /// moment after each small read, so the rest arrives in few large reads, none lost, the last
  /// ones read when it exits while set aside.
  @Test func aFastWritersSmallWritesAreReadInBatches() async throws {
    let sink = ReadCountingSink()
    let total = 32 << 20
    #expect(
      try await reactor.run(Support.shell("yes | head -c \(total)"), sink: sink, grace: .seconds(1)) == .exited(0))
    let (bytes, calls) = sink.totals
    #expect(bytes == total)
    // 4 096 writes; one read each would be 4 096 calls.
    #expect(calls < total / 8192 / 4, "\(calls) reads for \(total / 8192) writes")
  }

  @Test func environmentAndWorkingDirectory() async throws {
    let sink = CollectingSink()
    let spec = Support.shell(
      "echo \"$GREETING\"; pwd; env | grep -c . ", environment: ["GREETING": "hi there"], directory: "/tmp")
    #expect(try await reactor.run(spec, sink: sink, grace: .seconds(1)) == .exited(0))
    let out = sink.text(.stdout)
    #expect(out.prefix(2) == ["hi there", "/tmp"])
    // Only what we passed (+ what sh itself exports, like PWD), nothing inherited from the test.
    #expect(Int(out.last ?? "") ?? 99 <= 4)
  }

  @Test func spawnErrors() async throws {
    let sink = CollectingSink()
    await #expect(throws: SpawnError.executableNotFound("no-such-command-xyz")) {
      try await reactor.run(
        ProcessSpec(arguments: ["no-such-command-xyz"], environment: ["PATH": Support.path]), sink: sink,
        grace: .seconds(1))
    }
    await #expect(throws: SpawnError.executableNotFound("/no/such/binary")) {
      try await reactor.run(
        ProcessSpec(arguments: ["/no/such/binary"], environment: [:]), sink: sink, grace: .seconds(1))
    }
    let notExecutable = FileManager.default.temporaryDirectory.appendingPathComponent("runner-\(UUID().uuidString)")
      .path
    #expect(
      FileManager.default.createFile(
        atPath: notExecutable, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o644]))
    defer { try? FileManager.default.removeItem(atPath: notExecutable) }
    await #expect(throws: SpawnError.permissionDenied(notExecutable)) {
      try await reactor.run(ProcessSpec(arguments: [notExecutable], environment: [:]), sink: sink, grace: .seconds(1))
    }
    let badDirectory = SpawnError.workingDirectory("/no/such/dir", errno: ENOENT)
    await #expect(throws: badDirectory) {
      try await reactor.run(Support.shell("true", directory: "/no/such/dir"), sink: sink, grace: .seconds(1))
    }
    #expect(badDirectory.description == "cannot change to working directory '/no/such/dir': no such file or directory")
  }

  @Test func cancellationKillsChildAndGrandchild() async throws {
    let (environment, marker) = Support.newMarker()
    let reactor = self.reactor
    let run = Task {
      try await reactor.run(
        Support.shell("sleep 100 & sleep 100", environment: environment), sink: CollectingSink(), grace: .seconds(5))
    }
    #expect(await Support.eventually { Support.processes(withMarker: marker).count == 3 })
    run.cancel()
    let outcome = await Support.withTimeout { try? await run.value }
    #expect(outcome == .signaled(15))
    #expect(await Support.eventually { Support.processes(withMarker: marker).isEmpty })
  }

  @Test func alreadyCancelledTaskStartsNothing() async throws {
    let (environment, marker) = Support.newMarker()
    let reactor = self.reactor
    let run = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await reactor.run(
        Support.shell("sleep 100", environment: environment), sink: CollectingSink(), grace: .seconds(5))
    }
    #expect(try await run.value == .signaled(15))
    #expect(Support.processes(withMarker: marker).isEmpty)
  }

  @Test func termIgnoringChildIsKilledAfterGrace() async throws {
    let (environment, marker) = Support.newMarker()
    let reactor = self.reactor
    let run = Task {
      try await reactor.run(
        Support.shell("trap '' TERM; sleep 100; echo survived", environment: environment), sink: CollectingSink(),
        grace: .milliseconds(200))
    }
    #expect(await Support.eventually { Support.processes(withMarker: marker).count == 2 })
    run.cancel()
    #expect(await Support.withTimeout { try? await run.value } == .signaled(9))
    #expect(await Support.eventually { Support.processes(withMarker: marker).isEmpty })
  }

  @Test func killAllNowSkipsTheGrace() async throws {
    let (environment, marker) = Support.newMarker()
    let reactor = self.reactor
    let run = Task {
      try await reactor.run(
        Support.shell("trap '' TERM; sleep 100", environment: environment), sink: CollectingSink(), grace: .seconds(600)
      )
    }
    #expect(await Support.eventually { Support.processes(withMarker: marker).count == 2 })
    run.cancel()
    // The cancel reaches the reactor asynchronously; repeat until the group was graced and killed.
    let outcome = await Support.withTimeout {
      let poller = Task {
        while !Task.isCancelled {
          reactor.killAllNow()
          try? await Task.sleep(for: .milliseconds(20))
        }
      }
      defer { poller.cancel() }
      return try? await run.value
    }
    #expect(outcome == .signaled(9))
  }

  @Test func backgroundGrandchildDoesNotHoldTheRunAndIsReaped() async throws {
    let (environment, marker) = Support.newMarker()
    let reactor = self.reactor
    let sink = CollectingSink()
    let outcome = await Support.withTimeout {
      try? await reactor.run(
        Support.shell("sleep 100 & echo started", environment: environment), sink: sink, grace: .seconds(1))
    }
    #expect(outcome == .exited(0))
    #expect(sink.text(.stdout) == ["started"])
    // Polled: while the background child execs `sleep`, its /proc entry can briefly be unreadable.
    #expect(await Support.eventually { Support.processes(withMarker: marker).count == 1 })
    await reactor.reapLeftovers(grace: .seconds(2))
    #expect(await Support.eventually { Support.processes(withMarker: marker).isEmpty })
  }

  @Test func sequentialSpawnsLeakNoDescriptors() async throws {
    let before = Kernel.openFileDescriptorCount()
    for index in 0..<500 {
      let spec =
        index.isMultiple(of: 2)
        ? Support.shell("echo x; echo y >&2") : ProcessSpec(arguments: ["true"], environment: ["PATH": Support.path])
      #expect(try await reactor.run(spec, sink: CountingSink(), grace: .seconds(1)) == .exited(0))
    }
    _ = try? await reactor.run(
      ProcessSpec(arguments: ["/nonexistent"], environment: [:]), sink: CountingSink(), grace: .seconds(1))
    // Slack for unrelated fds the test runtime may open meanwhile; a leak would be hundreds.
    #expect(Kernel.openFileDescriptorCount() <= before + 5)
  }

  @Test func manyConcurrentRunsComplete() async throws {
    let reactor = self.reactor
    let sink = CountingSink()
    let results = await withTaskGroup(of: ProcessOutcome?.self) { group in
      var results: [ProcessOutcome?] = []
      for index in 0..<200 {
        if index >= 8, let result = await group.next() { results.append(result) }
        group.addTask {
          try? await reactor.run(Support.shell("echo \(index); exit \(index % 3)"), sink: sink, grace: .seconds(1))
        }
      }
      for await result in group { results.append(result) }
      return results
    }
    #expect(results.count == 200)
    #expect(results.filter { $0 == .exited(0) }.count == 67)
    #expect(results.contains(nil) == false)
    #expect(sink.totals.newlines == 200)
  }

  /// The three ways runner's callers drive the reactor (a task group refilled as runs end,
  /// long-lived workers, one run after another) each finish every run with its real exit status,
  /// for direct exec and for a shell. `RUNNER_BENCH_COUNT` raises the count; the times it prints
  /// are for reading, not checked (the spawn figures are Benchmarks/spawn's).
  @Test func everySpawnPatternFinishesEveryRun() async throws {
    let reactor = self.reactor
    let jobs = 2
    let count = Int(ProcessInfo.processInfo.environment["RUNNER_BENCH_COUNT"] ?? "") ?? 150
    for arguments in [["/bin/true"], ["/bin/sh", "-c", "true"], ["/bin/false"]] {
      let expected: ProcessOutcome = arguments == ["/bin/false"] ? .exited(1) : .exited(0)
      let spec = ProcessSpec(arguments: arguments, environment: ["PATH": Support.path])
      let start = ContinuousClock.now
      let grouped = await withTaskGroup(of: ProcessOutcome?.self) { group in
        var outcomes: [ProcessOutcome?] = []
        for index in 0..<count {
          if index >= jobs, let outcome = await group.next() { outcomes.append(outcome) }
          group.addTask { try? await reactor.run(spec, sink: CountingSink(), grace: .seconds(1)) }
        }
        for await outcome in group { outcomes.append(outcome) }
        return outcomes
      }
      let groupedTime = ContinuousClock.now - start
      let workers = await withTaskGroup(of: [ProcessOutcome?].self) { group in
        for worker in 0..<jobs {
          group.addTask {
            var outcomes: [ProcessOutcome?] = []
            for _ in stride(from: worker, to: count, by: jobs) {
              outcomes.append(try? await reactor.run(spec, sink: CountingSink(), grace: .seconds(1)))
            }
            return outcomes
          }
        }
        var all: [ProcessOutcome?] = []
        for await outcomes in group { all += outcomes }
        return all
      }
      var sequential: [ProcessOutcome?] = []
      for _ in 0..<count { sequential.append(try? await reactor.run(spec, sink: CountingSink(), grace: .seconds(1))) }
      for outcomes in [grouped, workers, sequential] {
        #expect(outcomes.count == count)
        #expect(
          outcomes.allSatisfy { $0 == expected },
          "\(arguments): \(Set(outcomes.map { $0?.description ?? "no outcome" }))")
      }
      print("reactor -j\(jobs) \(arguments.joined(separator: " ")): \(groupedTime / count) per spawn")
    }
  }
}
