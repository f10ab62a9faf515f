import Foundation
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
      for _ in 0..<500 where Self.pids(containing: marker).count < 3 { usleep(10_000) }
      #expect(Self.pids(containing: marker).count >= 3)
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
    let left = Self.survivors(marker)
    #expect(left.isEmpty, "\(ending.rawValue): processes left behind: \(left)")
    Self.killAll(left)
  }

  /// PR_SET_PDEATHSIG: the task's direct child dies with runner, even when runner is SIGKILLed.
  @Test func aSIGKILLedRunnerTakesItsDirectChildrenWithIt() throws {
    let marker = Self.newMarker()
    let directory = try Self.directory("tasks:\n  direct: sleep \(marker)\n  shell: \"sleep \(marker); true\"\n")
    let process = Self.runner(["-j2"], in: directory)
    try process.run()
    for _ in 0..<500 where Self.pids(containing: marker).count < 3 { usleep(10_000) }
    let before = Self.pids(containing: marker)
    #expect(before.count >= 3, "the direct sleep, the shell and its sleep")
    let direct = before.filter { Self.parent(of: $0) == process.processIdentifier }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    #expect(direct.count == 2)
    var alive = direct
    for _ in 0..<100 where !alive.isEmpty {
      usleep(10_000)
      alive = alive.filter { Self.isAlive($0) }
    }
    #expect(alive.isEmpty, "direct children outlived a SIGKILLed runner: \(alive)")
    // A grandchild (the shell's sleep) is not covered by PDEATHSIG; it is reparented and runs on.
    let left = Self.survivors(marker, waiting: .milliseconds(300))
    withKnownIssue("grandchildren outlive a SIGKILLed runner (PDEATHSIG covers the direct child)", isIntermittent: true)
    {
      #expect(left.isEmpty, "grandchildren left behind: \(left)")
    }
    Self.killAll(left)
  }

  /// After 10 000 tasks runner holds the same descriptors and no zombies as after one: the last
  /// task looks at its runner through /proc.
  @Test func tenThousandTasksLeakNoDescriptorsAndLeaveNoZombies() throws {
    let small = try Self.probe(tasks: 1)
    let large = try Self.probe(tasks: 10_000)
    #expect(large.descriptors == small.descriptors, "descriptors: \(small.descriptors) → \(large.descriptors)")
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
    let output = try BinaryRunner.run(["-j8", "--no-cache"], in: directory)
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
    process.arguments = arguments
    process.currentDirectoryURL = directory
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    return process
  }

  /// The marked processes still alive after giving the kernel a moment to deliver SIGKILLs.
  static func survivors(_ marker: String, waiting: Duration = .seconds(2)) -> [Int32] {
    let deadline = ContinuousClock.now + waiting
    var left = pids(containing: marker)
    while !left.isEmpty, ContinuousClock.now < deadline {
      usleep(20_000)
      left = pids(containing: marker)
    }
    return left
  }

  static func killAll(_ pids: [Int32]) {
    for pid in pids { kill(pid, SIGKILL) }
  }

  static func parent(of pid: Int32) -> Int32? {
    guard let stat = procFile("/proc/\(pid)/stat"),
      let close = stat.lastIndex(of: ")")
    else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    return fields.count > 1 ? Int32(fields[1]) : nil
  }

  static func isAlive(_ pid: Int32) -> Bool {
    guard let stat = procFile("/proc/\(pid)/stat") else { return false }
    return !stat.contains(") Z ")
  }

  static func pids(containing marker: String) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry -> Int32? in
      guard let pid = Int32(entry), let cmdline = procFile("/proc/\(entry)/cmdline"), cmdline.contains(marker),
        isAlive(pid)
      else { return nil }
      return pid
    }
  }

  /// A /proc file's text, read with plain read(2): Foundation's `contents(atPath:)` leaks its
  /// buffer (4 KiB a call, hundreds of MB over a polling test under AddressSanitizer) on files
  /// that report size 0, as every /proc file does.
  static func procFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 { return nil }
      if count == 0 { break }
      bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
