import Foundation
import Glibc
import Testing

@testable import RunnerExecution
@testable import RunnerProcess

/// Both ways the shim starts a child keep one contract: own process group, pipes, stdin from
/// /dev/null, the failing stage and errno on error, no descriptor left behind.
@Suite(.serialized)
struct SpawnMethodTests {
  static let methods: [Kernel.SpawnMethod] = [.standard, .fork]

  @Test(arguments: methods)
  func childRunsInItsOwnGroupWithPipes(method: Kernel.SpawnMethod) throws {
    let devnull = Kernel.openDevNull()
    defer { Kernel.close(devnull) }
    let spec = ProcessSpec(
      arguments: ["/bin/sh", "-c", "echo out; echo err >&2; read line || echo eof; exit 3"], environment: [:],
      workingDirectory: "/")
    let plan = SpawnPlan(spec, resolvedPath: "/bin/sh", searchedPath: false)
    let child = try Kernel.spawn(plan, devnull: devnull, method: method).get()
    #expect(getpgid(child.pid) == child.pid)
    #expect(Self.readAll(child.stdout) == "out\neof\n")
    #expect(Self.readAll(child.stderr) == "err\n")
    #expect(Self.waitForExit(child) == .exited(3))
  }

  @Test(arguments: methods)
  func failuresNameTheStage(method: Kernel.SpawnMethod) {
    let devnull = Kernel.openDevNull()
    defer { Kernel.close(devnull) }
    let before = Kernel.openFileDescriptorCount()
    let missing = SpawnPlan(
      ProcessSpec(arguments: ["/nonexistent/tool"], environment: [:]), resolvedPath: "/nonexistent/tool",
      searchedPath: false)
    guard case .failure(let exec) = Kernel.spawn(missing, devnull: devnull, method: method) else {
      Issue.record("a missing executable started")
      return
    }
    #expect(exec.stage == .exec && exec.errno == ENOENT)
    let elsewhere = SpawnPlan(
      ProcessSpec(arguments: ["/bin/true"], environment: [:], workingDirectory: "/nonexistent/dir"),
      resolvedPath: "/bin/true", searchedPath: false)
    guard case .failure(let chdir) = Kernel.spawn(elsewhere, devnull: devnull, method: method) else {
      Issue.record("a child started in a missing directory")
      return
    }
    #expect(chdir.stage == .workingDirectory && chdir.errno == ENOENT)
    // Other suites run meanwhile and open descriptors of their own: a leak shows as growth
    // with the number of failures, not as a difference of one or two. A hundred failures, a
    // bound of half that: one descriptor leaked per failure passes it in every round, while
    // another suite's descriptors open at that moment pass it in one round, not in three.
    var growth: [Int] = []
    var start = before
    for _ in 0..<3 {
      for _ in 0..<100 { _ = Kernel.spawn(missing, devnull: devnull, method: method) }
      let now = Kernel.openFileDescriptorCount()
      growth.append(now - start)
      start = now
      if growth.last! < 50 { break }
    }
    #expect(growth.last! < 50, "descriptors grew by \(growth) over rounds of 100 failed spawns")
  }

  /// The plan packs every string into one block: empty and non-ASCII ones must come through whole.
  @Test func argumentsAndEnvironmentArriveByteForByte() throws {
    let devnull = Kernel.openDevNull()
    defer { Kernel.close(devnull) }
    let spec = ProcessSpec(
      arguments: ["/bin/sh", "-c", "printf '[%s]' \"$1\" \"$2\" \"$EMPTY\" \"$WIDE\"", "sh", "", "é x"],
      environment: ["EMPTY": "", "WIDE": "ünï=1"])
    let plan = SpawnPlan(spec, resolvedPath: "/bin/sh", searchedPath: false)
    let child = try Kernel.spawn(plan, devnull: devnull).get()
    #expect(Self.readAll(child.stdout) == "[][é x][][ünï=1]")
    #expect(Self.readAll(child.stderr) == "")
    #expect(Self.waitForExit(child) == .exited(0))
  }

  /// A task starts with no handler of runner's, an empty signal mask, and default SIGPIPE/SIGINT/
  /// SIGTERM/SIGQUIT even though runner ignores them; whatever else runner ignores stays ignored.
  @Test(arguments: methods)
  func childStartsWithDefaultSignalHandling(method: Kernel.SpawnMethod) throws {
    let devnull = Kernel.openDevNull()
    defer { Kernel.close(devnull) }
    var handler = sigaction()
    handler.__sigaction_handler.sa_handler = { _ in }
    var previousUSR2 = sigaction()
    var previousPIPE = sigaction()
    sigaction(SIGUSR2, &handler, &previousUSR2)
    var ignore = sigaction()
    ignore.__sigaction_handler.sa_handler = SIG_IGN
    sigaction(SIGPIPE, &ignore, &previousPIPE)
    defer {
      sigaction(SIGUSR2, &previousUSR2, nil)
      sigaction(SIGPIPE, &previousPIPE, nil)
    }
    // cat installs no handler of its own (grep does, for SIGSEGV).
    let spec = ProcessSpec(arguments: ["/bin/cat", "/proc/self/status"], environment: [:])
    let plan = SpawnPlan(spec, resolvedPath: "/bin/cat", searchedPath: false)
    let child = try Kernel.spawn(plan, devnull: devnull, method: method).get()
    var fields: [String: UInt64] = [:]
    for line in Self.readAll(child.stdout).split(separator: "\n") where line.hasPrefix("Sig") {
      let parts = line.split(separator: ":")
      fields[String(parts[0])] = UInt64(parts[1].filter { !$0.isWhitespace }, radix: 16) ?? .max
    }
    _ = Self.readAll(child.stderr)
    #expect(Self.waitForExit(child) == .exited(0))
    #expect(fields["SigBlk"] == 0)
    #expect(fields["SigCgt"] == 0)
    let defaults: [Int32] = [SIGPIPE, SIGINT, SIGTERM, SIGQUIT]
    #expect(defaults.allSatisfy { (fields["SigIgn"] ?? .max) & (1 << UInt64($0 - 1)) == 0 })
  }

  /// After a spawn that stalled, the next ones bind the child to the spawner's CPU until it
  /// execs (spawn_cpu.c): the task still gets runner's whole CPU mask (`nproc` in a task must
  /// not say 1), and the spawning thread gets its own back. (This test thread's next spawns,
  /// in other tests, go the pinned way too: a real mode of runner's.)
  @Test(
    .enabled(if: Self.allowedCPUs(Self.threadStatus()).contains { $0 == "-" || $0 == "," }, "one CPU: nothing to pin"),
    .enabled(if: Kernel.lastSpawnWasPinned != nil, "this build spawns by fork (a sanitizer): no pinning"))
  func aPinnedSpawnLeavesEveryMaskWhole() throws {
    let devnull = Kernel.openDevNull()
    defer { Kernel.close(devnull) }
    let before = Self.allowedCPUs(Self.threadStatus())
    Kernel.noteSpawnStalled()
    let spec = ProcessSpec(arguments: ["/bin/cat", "/proc/self/status"], environment: [:])
    let child = try Kernel.spawn(SpawnPlan(spec, resolvedPath: "/bin/cat", searchedPath: false), devnull: devnull).get()
    let pinned = Kernel.lastSpawnWasPinned
    let status = Self.readAll(child.stdout)
    _ = Self.readAll(child.stderr)
    #expect(Self.waitForExit(child) == .exited(0))
    #expect(pinned == true, "the spawn did not go the pinned way")
    #expect(Self.allowedCPUs(status) == before)
    #expect(Self.allowedCPUs(Self.threadStatus()) == before)
  }

  static func threadStatus() -> String {
    (try? String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8)) ?? ""
  }

  static func allowedCPUs(_ status: String) -> String {
    let line = status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") } ?? ""
    return line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
  }

  @Test func theWatchdogRunsOutsideThisSession() {
    let watchdog = Kernel.orphanWatchdogPID()
    #expect(watchdog > 0)
    // The first call forks it; it leaves the session right after, in its own time.
    for _ in 0..<2000 where getsid(watchdog) != watchdog { usleep(1000) }
    #expect(getsid(watchdog) == watchdog)
    #expect(getsid(watchdog) != getsid(0))
  }

  static func readAll(_ fd: Int32) -> String {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
      let count = chunk.withUnsafeMutableBytes { Kernel.read(fd, into: $0) }
      if count > 0 {
        bytes += chunk[..<count]
      } else if count == -Int(EAGAIN) {
        _ = poll(&poller, 1, 5000)
      } else {
        break
      }
    }
    Kernel.close(fd)
    return String(decoding: bytes, as: UTF8.self)
  }

  static func waitForExit(_ child: Kernel.Child) -> ProcessOutcome? {
    defer { Kernel.close(child.pidfd) }
    var poller = pollfd(fd: child.pidfd, events: Int16(POLLIN), revents: 0)
    _ = poll(&poller, 1, 5000)
    return Kernel.reap(pidfd: child.pidfd)
  }
}
