import RunnerModel
import TestSupport
import Testing

@testable import RunnerCache

/// The engine's decision — up to date, or why not — on a file system in memory whose clock is
/// a counter: the changes a stamp alone could hide, and the ones a content hash forgives.
@Suite struct EngineDecisionTests {
  let files = MemoryFileSystem()

  init() {
    files.makeDirectory("/p/.runner")
  }

  func task(_ sources: [String]) -> TaskDefinition {
    var task = TaskDefinition(name: "build", location: SourceLocation(file: "tasks.yml", line: 1, column: 1), index: 0)
    task.action = .shell([])
    task.sources = sources
    return task
  }

  /// The task's key now and why it is not up to date against `previous` (nil: it is), as a
  /// run decides it: with its own touch of the mark (and a wall clock that trusts nothing, so
  /// only the mark can).
  func decide(_ task: TaskDefinition, _ previous: TaskRecord?) -> (record: TaskRecord, reason: RunReason?) {
    let disk = Disk(mark: "/p/.runner/clock", clock: TestClock(wall: 0), files: files)
    let fingerprint = Fingerprint(
      task: task, workingDirectory: "/p", environment: [], dependencies: [], previous: previous, disk: disk)
    let reason = Judgement.of(previous, fingerprint, task: task, directory: "/p", disk: disk) { false }.reason
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
    // Even a record that had kept the stamp (an older runner's, say) is judged again when the
    // stamp is reused: the mark of this tick is not past it.
    var trusting = first.record
    trusting.sources[0].stamp = stamp
    trusting.sources[0].content = ContentDigest(of: Array("two".utf8))
    trusting.fingerprint = decide(task(["src/a.c"]), nil).record.fingerprint
    files.write("/p/src/a.c", "six")
    #expect(decide(task(["src/a.c"]), trusting).reason == changed("src/a.c"))
    // A tick later the same stamp is trusted and reused without hashing (the stat cache):
    // the file holds "six", the key still says "two". Hence no record keeps such a stamp.
    files.tick()
    #expect(decide(task(["src/a.c"]), trusting).reason == nil, "trusted: not hashed again")
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
    #expect(files.setModified("/p/src/a.c", modified))
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
    #expect(files.remove("/p/src/b.c"))
    #expect(decide(build, first.record).reason == changed("src/b.c", .removed))
    files.tick()
    files.write("/p/src/b.c", "b")
    #expect(decide(build, first.record).reason == nil, "a new inode, the same content")
  }

  /// A clock stepped back (NTP, `date -s`) can give a rewrite the very stamp a record kept:
  /// a reused stamp is judged again against this run's mark, which is not past it.
  @Test func aRewriteAtARecordedTimeAfterTheClockSteppedBackIsFound() {
    files.write("/p/src/a.c", "one")
    files.tick()
    let first = decide(task(["src/a.c"]), nil)
    #expect(first.record.sources[0].stamp != nil)
    files.tick(1_000_000_000)
    files.stepBack(1_001_000_000)
    let recorded = first.record.sources[0].stamp
    files.write("/p/src/a.c", "two")
    #expect(files.status("/p/src/a.c", follow: true)?.stamp == recorded, "the rewrite has the recorded stamp")
    #expect(decide(task(["src/a.c"]), first.record).reason == changed("src/a.c"))
  }

  /// A source reached through a linked directory: retargeting the directory link is seen.
  @Test func aLinkedDirectoryRetargetedIsSeen() {
    files.write("/p/v1/config.h", "1")
    files.write("/p/v2/config.h", "2")
    files.link("/p/include", to: "v1")
    files.tick()
    let build = task(["include/config.h"])
    let first = decide(build, nil)
    #expect(first.record.sources.map(\.content) == [ContentDigest(of: Array("1".utf8))])
    files.tick()
    files.link("/p/include", to: "v2")
    #expect(decide(build, first.record).reason == changed("include/config.h"))
  }

  @Test func aFileAddedToAListedDirectoryIsFoundAndAChmodIsNamed() {
    files.write("/p/src/a.c", "a")
    files.tick()
    let build = task(["src/*.c"])
    let first = decide(build, nil)
    files.tick()
    files.write("/p/src/c.c", "c")
    #expect(decide(build, first.record).reason == changed("src/c.c", .added))
    #expect(files.remove("/p/src/c.c"))
    files.tick()
    files.write("/p/src/a.c", "a", executable: true)
    #expect(decide(build, first.record).reason == changed("src/a.c", .mode(executable: true)))
  }
}
