import Foundation
import TestSupport
import Testing

/// The built binary on real task files: exit codes, signals, the summary, the events file.
@Suite struct RunBehaviourTests {
  func temporaryDirectory(_ yaml: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try yaml.write(to: directory.appendingPathComponent("tasks.yml"), atomically: true, encoding: .utf8)
    return directory
  }

  @Test func successExitsZeroWithPrefixedOutputAndSummary() throws {
    let directory = try temporaryDirectory(
      "tasks:\n  hello: echo hello world\n  after: {deps: [hello], run: echo done}\n")
    let output = try BinaryRunner.run(["**"], in: directory)
    #expect(output.status == 0)
    #expect(output.stdout.contains("hello | hello world\n"))
    #expect(output.stdout.contains("after | done\n"))
    #expect(output.stdout.contains("2 task(s): 2 succeeded in "))
  }

  @Test func aFailureExitsOneAndPrintsTheRootCauseLast() throws {
    let directory = try temporaryDirectory(
      "tasks:\n  noisy: sh -c 'sleep 5'\n  broken: sh -c 'echo first; echo the real problem >&2; exit 4'\n")
    let output = try BinaryRunner.run(["--grace", "200ms", "**"], in: directory)
    #expect(output.status == 1)
    let lines = output.stdout.split(separator: "\n")
    #expect(lines.suffix(4).first?.hasPrefix("✗ broken (tasks.yml:3:3): ") == true)
    #expect(lines.last == "    | the real problem")
    #expect(output.stdout.contains("⊘ noisy cancelled"))
  }

  @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129)), (SIGQUIT, Int32(131))])
  func signalsCancelTheRunAndLeaveNoProcess(signal: Int32, expected: Int32) throws {
    let marker = "runner-sig-\(UUID().uuidString.prefix(8))"
    let directory = try temporaryDirectory(
      "tasks:\n  a: sh -c 'sleep 300 & sleep 300' \(marker)\n  b: sh -c 'trap \"\" TERM; sleep 300' \(marker)\n")
    let process = Process()
    process.executableURL = BinaryRunner.executable
    process.arguments = ["--grace", "300ms", "**"]
    process.currentDirectoryURL = directory
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    for _ in 0..<500 where ProcScan.pids(containing: marker).count < 3 { usleep(10_000) }
    #expect(ProcScan.pids(containing: marker).count >= 3)
    kill(process.processIdentifier, signal)
    let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == expected)
    // Torn down as a run is (SIGHUP: the terminal closed; SIGQUIT printed a crash backtrace and
    // ran on): the summary says which signal stopped it.
    let name = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP", SIGQUIT: "SIGQUIT"][signal] ?? ""
    #expect(printed.contains("interrupted by \(name)"), "\(printed)")
    let left = ProcScan.survivors(marker)
    #expect(left.isEmpty, "processes left behind: \(left)")
  }

  @Test func aClosedStdoutDoesNotCrashTheRun() throws {
    let directory = try temporaryDirectory("tasks:\n  many: seq 1 100000\n")
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/sh")
    shell.arguments = ["-c", "'\(BinaryRunner.executable.path)' '**' | head -1; echo \"status=${PIPESTATUS:-}\""]
    shell.currentDirectoryURL = directory
    let pipe = Pipe()
    shell.standardOutput = pipe
    try shell.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    shell.waitUntilExit()
    #expect(shell.terminationStatus == 0)
    #expect(String(decoding: data, as: UTF8.self).hasPrefix("▶ many\n"))
  }

  @Test func eventsFileRecordsEveryTransitionAsJSONLines() throws {
    let directory = try temporaryDirectory("tasks:\n  a: echo out\n  b: {deps: [a], run: \"true\"}\n")
    let output = try BinaryRunner.run(["--events", "events.jsonl", "**"], in: directory)
    #expect(output.status == 0)
    let text = try String(contentsOf: directory.appendingPathComponent("events.jsonl"), encoding: .utf8)
    let objects = try text.split(separator: "\n").map {
      try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
    }
    #expect(objects.first?["event"] as? String == "run_started")
    #expect(objects.last?["event"] as? String == "run_finished")
    #expect(objects.last?["exit_code"] as? Int == 0)
    let states = objects.filter { $0["event"] as? String == "state" && $0["task"] as? String == "b" }.map {
      $0["state"] as! String
    }
    #expect(states == ["ready", "executing", "succeeded"])
    #expect(objects.contains { $0["event"] as? String == "output" && $0["line"] as? String == "out" })
    let times = objects.map { $0["time"] as! Double }
    #expect(times == times.sorted())
  }

  @Test func unwritableEventsFileIsAUsageError() throws {
    let directory = try temporaryDirectory("tasks:\n  a: \"true\"\n")
    let output = try BinaryRunner.run(["--events", "/nonexistent/dir/e.jsonl", "**"], in: directory)
    #expect(output.status == 2)
    #expect(output.stderr.contains("cannot read '/nonexistent/dir/e.jsonl'") || output.stderr.contains("e.jsonl"))
  }

  /// /dev/full accepts the open and fails every write with ENOSPC, as a full disk does.
  @Test func aFailedEventsWriteWarnsOnceAndFailsAnOtherwiseGoodRun() throws {
    let directory = try temporaryDirectory("tasks:\n  chatty: seq 1 200\n  broken: {deps: [chatty], run: \"exit 3\"}\n")
    let good = try BinaryRunner.run(["--events", "/dev/full", "chatty"], in: directory)
    #expect(good.status == 2)
    #expect(good.stdout.contains("chatty | 200\n"), "the run itself went on")
    let warning = "warning: cannot write the events file '/dev/full': no space left on device"
    #expect(good.stderr.components(separatedBy: warning).count == 2, "exactly one warning: \(good.stderr)")
    let failed = try BinaryRunner.run(["--events", "/dev/full", "**"], in: directory)
    #expect(failed.status == 1, "a failed task's exit code wins")
    #expect(failed.stderr.components(separatedBy: warning).count == 2, "\(failed.stderr)")
  }

  @Test func aBackgroundProcessLeftBehindDoesNotHangTheRun() throws {
    let marker = "runner-bg-\(UUID().uuidString.prefix(8))"
    let directory = try temporaryDirectory("tasks:\n  leaves: sh -c 'sleep 300 & echo started' \(marker)\n")
    let output = try BinaryRunner.run(["--grace", "300ms", "**"], in: directory)
    #expect(output.status == 0)
    #expect(output.stdout.contains("leaves | started"))
    let left = ProcScan.survivors(marker)
    #expect(left.isEmpty)
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dot"), "needs Graphviz's dot"))
  func dotOutputIsAcceptedByGraphviz() throws {
    let directory = BinaryRunner.packageRoot.appendingPathComponent("Tests/RunnerCLITests/Fixtures/dry-run-ci")
    let output = try BinaryRunner.run(["--graph", "dot"], in: directory)
    let dot = Process()
    dot.executableURL = URL(fileURLWithPath: "/usr/bin/dot")
    dot.arguments = ["-Tsvg", "-o", "/dev/null"]
    let input = Pipe()
    dot.standardInput = input
    try dot.run()
    input.fileHandleForWriting.write(Data(output.stdout.utf8))
    try input.fileHandleForWriting.close()
    dot.waitUntilExit()
    #expect(dot.terminationStatus == 0)
  }
}
