import Foundation
import TestSupport
import Testing

/// Process hygiene of the built binary: whatever way a run ends, nothing it started lives on,
/// and a long run leaks neither file descriptors nor zombies.
///
/// Every test tags its processes with a marker that only it uses (a `sleep` duration such as
/// `300.123456`), then scans /proc for the marker once runner is gone.
@Suite struct HygieneTests {
  enum Ending: String, Sendable, CaseIterable {
    case failFast = "fail-fast"
    case timeout
    case keepGoing = "keep-going"
    case sigint = "SIGINT"
    case sigterm = "SIGTERM"
  }

  /// A task whose process tree resists polite termination: a shell with a background subshell
  /// that ignores SIGTERM, itself with a child, plus a foreground sleep. Written as a block
  /// scalar so no quoting is needed.
  static func stubbornTask(_ name: String, _ marker: String, extra: String = "") -> String {
    "  \(name):\n\(extra)    run: |\n      (trap '' TERM; sleep \(marker) & sleep \(marker)) & sleep \(marker)\n"
  }

  @Test(arguments: Ending.allCases)
  func noProcessSurvives(_ ending: Ending) throws {
    let marker = Self.newMarker()
    var yaml = "tasks:\n"
    var arguments = ["--grace", "300ms"]
    switch ending {
    case .failFast:
      yaml += Self.stubbornTask("long", marker) + "  broken: sh -c 'sleep 0.5; exit 3'\n"
    case .timeout:
      yaml += Self.stubbornTask("long", marker, extra: "    timeout: 500ms\n")
    case .keepGoing:
      arguments.append("--keep-going")
      yaml += "  leaves:\n    run: |\n      (trap '' TERM; sleep \(marker)) & echo started\n"
      yaml += "  broken: sh -c 'sleep 0.3; exit 3'\n  after: {deps: [broken], run: 'true'}\n"
    case .sigint, .sigterm:
      yaml += Self.stubbornTask("long", marker)
    }
    let directory = try Self.directory(yaml)
    let process = Self.runner(arguments, in: directory)
    try process.run()
    if ending == .sigint || ending == .sigterm {
      for _ in 0..<500 where ProcScan.pids(containing: marker).count < 3 { usleep(10_000) }
      #expect(ProcScan.pids(containing: marker).count >= 3)
      kill(process.processIdentifier, ending == .sigint ? SIGINT : SIGTERM)
    }
    process.waitUntilExit()
    let expected: Int32 =
      switch ending {
      case .failFast, .timeout, .keepGoing: 1
      case .sigint: 130
      case .sigterm: 143
      }
    #expect(process.terminationStatus == expected)
    let left = ProcScan.survivors(marker)
    #expect(left.isEmpty, "\(ending.rawValue): processes left behind: \(left)")
    Self.killAll(left)
  }

  /// PR_SET_PDEATHSIG ends the direct children of a SIGKILLed runner; the orphan watchdog ends the
  /// rest of their process groups: a background grandchild, a double-forked one, one that
  /// ignores SIGTERM (SIGKILL after the watchdog's 2 s grace).
  @Test func aSIGKILLedRunnerTakesItsWholeProcessTreeWithIt() throws {
    let marker = Self.newMarker()
    var yaml = "tasks:\n  direct: sleep \(marker)\n  shell: \"sleep \(marker); true\"\n"
    yaml += "  background:\n    run: |\n      sleep \(marker) &\n      (sleep \(marker) &)\n"
    yaml += "      (trap '' TERM; sleep \(marker)) &\n      sleep \(marker)\n"
    let directory = try Self.directory(yaml)
    let process = Self.runner(["-j3"], in: directory)
    try process.run()
    #expect(ProcScan.wait { ProcScan.pids(containing: marker).count >= 7 }, "two direct sleeps, the shell's, four")
    let before = ProcScan.pids(containing: marker)
    let direct = before.filter { ProcScan.parent(of: $0) == process.processIdentifier }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    #expect(direct.count == 3, "the direct sleep and two shells")
    let left = ProcScan.survivors(marker, waiting: .seconds(6))
    #expect(left.isEmpty, "processes outlived a SIGKILLed runner: \(left)")
    Self.killAll(left)
  }

  /// An image `load:` from a URL that never answers does not hold runner: SIGTERM cancels the
  /// transfer and runner exits 143 at once. The server is a socket that listens and never
  /// answers; the test waits until runner's connection is queued on it.
  @Test func aURLThatNeverAnswersDoesNotHoldASIGTERMedRunner() throws {
    let listener = LocalSocket(listening: true)
    defer { listener.close() }
    let directory = try Self.directory(
      "tasks:\n  fetch: {image: [{load: \"http://127.0.0.1:\(listener.port)/a.png\"}, {save: out.png}]}\n")
    let process = Self.runner([], in: directory)
    try process.run()
    let connected = ProcScan.wait {
      var entry = pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0)
      return poll(&entry, 1, 0) == 1
    }
    #expect(connected, "runner connected")
    kill(process.processIdentifier, SIGTERM)
    let ended = ProcScan.wait(upTo: .seconds(5)) { !process.isRunning }
    if !ended { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    #expect(ended, "runner ended within 5 s of SIGTERM")
    #expect(process.terminationStatus == 143)
  }

  /// The watchdog is outside runner's session and process group, holds nothing but /dev/null and
  /// its pipe, shrugs off the signals a terminal or a `kill` of runner's group would send, and
  /// still cleans up and exits once runner is SIGKILLed.
  @Test func theWatchdogIsDetachedIgnoresSignalsAndStillCleansUp() throws {
    let marker = Self.newMarker()
    let directory = try Self.directory("tasks:\n  bg: \"sleep \(marker) & sleep \(marker)\"\n")
    let process = Self.runner([], in: directory)
    try process.run()
    let runner = process.processIdentifier
    var watchdog: Int32?
    #expect(
      ProcScan.wait {
        watchdog = ProcScan.pids(named: "runner-watchdog").first { ProcScan.parent(of: $0) == runner }
        return watchdog != nil && ProcScan.pids(containing: marker).count >= 2
      })
    guard let watchdog, let status = ProcScan.status(of: watchdog), let runnerStatus = ProcScan.status(of: runner)
    else {
      kill(runner, SIGKILL)
      process.waitUntilExit()
      Self.killAll(ProcScan.pids(containing: marker))
      return
    }
    #expect(status.session == watchdog && status.group == watchdog)
    #expect(runnerStatus.session != watchdog)
    let descriptors = ProcScan.descriptors(of: watchdog)
    #expect(descriptors.keys.sorted() == [0, 1, 2, 3], "\(descriptors)")
    #expect([0, 1, 2].allSatisfy { descriptors[$0] == "/dev/null" })
    #expect(descriptors[3]?.hasPrefix("pipe:") == true)
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { kill(watchdog, signal) }
    #expect(!ProcScan.wait(upTo: .milliseconds(300)) { !ProcScan.isAlive(watchdog) }, "a signal ended the watchdog")
    kill(runner, SIGKILL)
    process.waitUntilExit()
    let left = ProcScan.survivors(marker, waiting: .seconds(6))
    #expect(left.isEmpty, "processes outlived a SIGKILLed runner: \(left)")
    Self.killAll(left)
    #expect(ProcScan.wait { !ProcScan.isAlive(watchdog) }, "the watchdog outlived its work")
  }

  /// After a normal run the watchdog finds nothing to do and exits.
  @Test func theWatchdogExitsAfterANormalRun() throws {
    let marker = Self.newMarker()
    let directory = try Self.directory("tasks:\n  short: \"sleep 0.5; echo \(marker)\"\n")
    let process = Self.runner([], in: directory)
    try process.run()
    let runner = process.processIdentifier
    var watchdog: Int32?
    _ = ProcScan.wait {
      watchdog = ProcScan.pids(named: "runner-watchdog").first { ProcScan.parent(of: $0) == runner }
      return watchdog != nil
    }
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(watchdog != nil, "no watchdog seen while the task ran")
    if let watchdog { #expect(ProcScan.wait { !ProcScan.isAlive(watchdog) }, "the watchdog outlived runner") }
  }

  /// After 10 000 tasks runner holds the descriptors it held after one, but for the jobserver
  /// pools ended tasks left for the next (at most -j of them, three descriptors each in the
  /// pipe form), and no zombies: the last task looks at its runner through /proc.
  @Test func tenThousandTasksLeakNoDescriptorsAndLeaveNoZombies() throws {
    let small = try Self.probe(tasks: 1)
    let large = try Self.probe(tasks: 10_000)
    #expect(
      large.descriptors <= small.descriptors + 3 * 8, "descriptors: \(small.descriptors) → \(large.descriptors)")
    #expect(large.zombies == 0)
    #expect(small.zombies == 0)
  }

  /// Runs `tasks` trivial tasks, then a probe task that counts the descriptors runner has open
  /// and its zombie children.
  static func probe(tasks: Int) throws -> (descriptors: Int, zombies: Int) {
    var yaml = "tasks:\n"
    let script =
      "p=$$; while [ \"$(cat /proc/$p/comm)\" != runner ]; do p=$(cut -d\" \" -f4 /proc/$p/stat); done; "
      + "z=0; for s in /proc/[0-9]*/stat; do set -- $(cat $s 2>/dev/null); "
      + "[ \"$4\" = \"$p\" ] && [ \"$3\" = Z ] && z=$((z+1)); done; echo fds=$(ls /proc/$p/fd | wc -l) zombies=$z"
    yaml += "  probe:\n    deps: [all]\n    run: '\(script)'\n"
    yaml += "  all: {deps: [\((0..<tasks).map { "t\($0)" }.joined(separator: ", "))]}\n"
    for index in 0..<tasks { yaml += "  t\(index): 'true'\n" }
    let directory = try directory(yaml)
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = try BinaryRunner.run(["-j8", "--no-cache", "**"], in: directory)
    #expect(output.status == 0, "\(output.stderr.suffix(1000))")
    let line = output.stdout.split(separator: "\n").first { $0.contains("probe | fds=") } ?? ""
    let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    #expect(numbers.count == 2, "\(output.stdout.suffix(1000))")
    return (numbers.first ?? -1, numbers.last ?? -1)
  }

  static func newMarker() -> String { "300.\(Int.random(in: 100_000...999_999))" }

  static func directory(_ yaml: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-hygiene-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try Data(yaml.utf8).write(to: directory.appendingPathComponent("tasks.yml"))
    return directory
  }

  static func runner(_ arguments: [String], in directory: URL) -> Process {
    let process = Process()
    process.executableURL = BinaryRunner.executable
    process.arguments = arguments + ["**"]
    process.currentDirectoryURL = directory
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    return process
  }

  static func killAll(_ pids: [Int32]) {
    for pid in pids { kill(pid, SIGKILL) }
  }
}
