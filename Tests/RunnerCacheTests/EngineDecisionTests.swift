import RunnerModel
import TestSupport
import Testing

@testable import RunnerCache

/// The engine's decision — up to date, or why not — on a file system in memory whose clock is
/// a counter: the changes a stamp alone could hide, and the ones a content hash forgives.
@Suite struct EngineDecisionTests {
  let files = MemoryFileSystem()
  let disk: Disk

  init() {
    disk = Disk(mark: "/p/.runner/clock", clock: TestClock(), files: files)
  }

  func task(_ sources: [String]) -> TaskDefinition {
    var task = TaskDefinition(name: "build", location: SourceLocation(file: "tasks.yml", line: 1, column: 1), index: 0)
    task.action = .shell([])
    task.sources = sources
    return task
  }

  /// The task's key now and why it is not up to date against `previous` (nil: it is).
  func decide(_ task: TaskDefinition, _ previous: TaskRecord?) -> (record: TaskRecord, reason: RunReason?) {
    let fingerprint = Fingerprint(
      task: task, workingDirectory: "/p", environment: [], dependencies: [], previous: previous, disk: disk)
    let reason = RunReason.check(previous, fingerprint, task: task, directory: "/p", disk: disk)
    var record = TaskRecord(
      fingerprint: fingerprint.value, operation: fingerprint.operation, directory: fingerprint.directory,
      environment: fingerprint.environment, dependencies: fingerprint.dependencies, sources: fingerprint.sources,
      outputs: [], values: [], outputDigest: "", walk: fingerprint.walk)
    record.outcome = .ran
    return (record, reason)
  }

  func changed(_ path: String, _ kind: SourceChange.Kind = .changed) -> RunReason {
    .sourceChanged(SourceChange(path: path, kind: kind), more: 0)
  }

  /// A file rewritten in the tick it was hashed in keeps its whole stamp (size, times, inode).
  /// It was never trusted, so the next run hashes it again; trusting it would hide the change.
  @Test func aRewriteInTheTickOfTheHashIsNeverHidden() {
    files.write("/p/src/a.c", "one")
    let first = decide(task(["src/a.c"]), nil)
    #expect(first.reason == .noRecord)
    #expect(first.record.sources.map(\.stamp) == [nil], "changed in the tick of the mark")
    let stamp = files.status("/p/src/a.c", follow: true)?.stamp
    files.write("/p/src/a.c", "two")
    #expect(files.status("/p/src/a.c", follow: true)?.stamp == stamp, "the rewrite kept the stamp")
    #expect(decide(task(["src/a.c"]), first.record).reason == changed("src/a.c"))
    // The hazard itself: a record that had trusted the stamp would call the task up to date.
    var trusting = first.record
    trusting.sources[0].stamp = stamp
    trusting.sources[0].hash = ContentHasher.sha256Hex(Array("two".utf8))
    trusting.fingerprint = decide(task(["src/a.c"]), nil).record.fingerprint
    files.write("/p/src/a.c", "six")
    #expect(decide(task(["src/a.c"]), trusting).reason == nil, "a trusted stamp hides what it cannot see")
  }

  /// Once a tick has passed, the stamp is trusted; a later rewrite that puts the old
  /// modification time back still changes the change time.
  @Test func contentChangedWithSizeAndModificationTimeKept() {
    files.write("/p/src/a.c", "one")
    files.tick()
    let first = decide(task(["src/a.c"]), nil)
    #expect(first.record.sources[0].stamp != nil)
    #expect(decide(task(["src/a.c"]), first.record).reason == nil)
    files.tick()
    let modified = files.status("/p/src/a.c", follow: true)!.stamp.modified
    files.write("/p/src/a.c", "two")
    files.setModified("/p/src/a.c", modified)
    #expect(decide(task(["src/a.c"]), first.record).reason == changed("src/a.c"))
  }

  @Test func aSymbolicLinkRetargetedIsAChangeOnlyWhenTheContentIs() {
    files.write("/p/include/a.h", "#define A 1\n")
    files.write("/p/include/b.h", "#define A 2\n")
    files.write("/p/include/same.h", "#define A 1\n")
    files.link("/p/include/config.h", to: "a.h")
    files.tick()
    let build = task(["include/config.h"])
    let first = decide(build, nil)
    files.tick()
    files.link("/p/include/config.h", to: "same.h")
    #expect(decide(build, first.record).reason == nil, "another file, the same content")
    files.link("/p/include/config.h", to: "b.h")
    #expect(decide(build, first.record).reason == changed("include/config.h"))
  }

  @Test func aSourceDeletedIsNamedAndRestoredIsUpToDate() {
    files.write("/p/src/a.c", "a")
    files.write("/p/src/b.c", "b")
    files.tick()
    let build = task(["src/*.c"])
    let first = decide(build, nil)
    #expect(first.record.walk != nil, "the listing is trusted")
    files.tick()
    files.remove("/p/src/b.c")
    #expect(decide(build, first.record).reason == changed("src/b.c", .removed))
    files.tick()
    files.write("/p/src/b.c", "b")
    #expect(decide(build, first.record).reason == nil, "a new inode, the same content")
  }

  /// A clock stepped back (NTP, `date -s`) could give a later change the time of a recorded
  /// stamp: no new stamp is trusted on the mark's device until the clock has caught up.
  @Test func aClockSteppedBackTrustsNothingNewUntilItCatchesUp() throws {
    let clock = TestClock()
    let disk = Disk(mark: "/p/.runner/clock", clock: clock, files: files)
    files.write("/p/src/a.c", "a")
    files.tick()
    let old = try #require(files.status("/p/src/a.c", follow: true)).stamp
    #expect(disk.judge().trusts(old))
    files.tick(1_000_000_000)
    clock.advance(by: Disk.refreshInterval)
    _ = disk.judge()
    files.stepBack(500_000_000)
    files.write("/p/src/b.c", "b")
    files.tick()
    let stepped = try #require(files.status("/p/src/b.c", follow: true)).stamp
    clock.advance(by: Disk.refreshInterval)
    #expect(!disk.judge().trusts(stepped))
    #expect(!disk.judge().trusts(old), "nothing on the device")
    files.tick(400_000_000)
    clock.advance(by: Disk.refreshInterval)
    #expect(!disk.judge().trusts(stepped), "not caught up yet")
    files.tick(200_000_000)
    clock.advance(by: Disk.refreshInterval)
    #expect(disk.judge().trusts(stepped))
  }

  @Test func aFileAddedToAListedDirectoryIsFoundAndAChmodIsNamed() {
    files.write("/p/src/a.c", "a")
    files.tick()
    let build = task(["src/*.c"])
    let first = decide(build, nil)
    files.tick()
    files.write("/p/src/c.c", "c")
    #expect(decide(build, first.record).reason == changed("src/c.c", .added))
    files.remove("/p/src/c.c")
    files.tick()
    files.write("/p/src/a.c", "a", executable: true)
    #expect(decide(build, first.record).reason == changed("src/a.c", .mode(executable: true)))
  }
}
