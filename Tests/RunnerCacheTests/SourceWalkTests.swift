import Foundation
import Glibc
import RunnerBasics
import TestSupport
import Testing

@testable import RunnerCache
@testable import RunnerModel

/// The recorded walk of a task's sources: what it keeps, when it still holds, and that a
/// fingerprint re-uses it only while it holds.
@Suite struct SourceWalkTests {
  let root: String
  /// Ten seconds from now, so every listing counts as old enough to trust.
  let later: Int64
  /// Judges by a clock ten seconds ahead alone (no reference file), as `later`.
  let disk: Disk

  init() throws {
    later = SystemClock().wallNanoseconds + 10_000_000_000
    disk = Disk(mark: nil, clock: TestClock(wall: later))
    root = FileManager.default.temporaryDirectory.appendingPathComponent("runner-walk-\(UUID().uuidString)").path
    for file in ["src/a.c", "src/b.c", "src/notes.txt", "other/thing", "Package.swift"] {
      let path = root + "/" + file
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try "// \(file)\n".write(toFile: path, atomically: false, encoding: .utf8)
    }
    try FileManager.default.createSymbolicLink(atPath: root + "/src/link.c", withDestinationPath: "../other/thing")
    // An old modification time, so that any later change to the directory is a different one.
    for directory in ["", "/src", "/other"] { backdate(root + directory) }
  }

  func backdate(_ path: String) {
    var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
    #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
  }

  func walk(_ patterns: [String]) -> (paths: [String], walk: SourceWalk?) {
    var recorder: SourceWalk.Recorder? = SourceWalk.Recorder(judge: .init(wall: later), files: LocalFileSystem())
    let paths = SourceGlob.expand(patterns, in: root, recording: &recorder)
    return (paths, recorder?.finish(key: SourceWalk.key(patterns: patterns, directory: root)))
  }

  @Test func keepsListingsAndOnlyTheProbesNoListingCovers() throws {
    let (paths, found) = walk(["src/*.c", "Package.swift", "missing.txt"])
    #expect(paths == ["Package.swift", "src/a.c", "src/b.c", "src/link.c"])
    let walk = try #require(found)
    #expect(walk.listings.map(\.path) == [root + "/src"])
    // `src` itself and the plain files in it are covered by the listing; the link is not.
    #expect(
      Set(walk.probes.map { "\($0.path.dropFirst(root.count)) \($0.kind)" }) == [
        "/Package.swift other", "/missing.txt absent", "/src/link.c other",
      ])
    #expect(walk.holds(in: LocalFileSystem(), judge: nil))
  }

  @Test func stopsHoldingWhenAnEntryIsAddedOrRemoved() throws {
    let walk = try #require(walk(["src/*.c"]).walk)
    try "new".write(toFile: root + "/src/c.c", atomically: false, encoding: .utf8)
    #expect(!walk.holds(in: LocalFileSystem(), judge: nil))
    backdate(root + "/src")
    let rewalked = try #require(self.walk(["src/*.c"]).walk)
    #expect(rewalked.holds(in: LocalFileSystem(), judge: nil))
    // Even a name the pattern does not match: the listing is what is compared.
    #expect(unlink(root + "/src/notes.txt") == 0)
    #expect(!rewalked.holds(in: LocalFileSystem(), judge: nil))
  }

  @Test func stopsHoldingWhenALinkChangesKindOrALiteralPathAppears() throws {
    let walk = try #require(walk(["src/*.c", "missing.txt"]).walk)
    #expect(unlink(root + "/other/thing") == 0)
    #expect(mkdir(root + "/other/thing", 0o755) == 0)
    #expect(!walk.holds(in: LocalFileSystem(), judge: nil))

    let literal = try #require(self.walk(["missing.txt"]).walk)
    #expect(literal.holds(in: LocalFileSystem(), judge: nil))
    try "now here".write(toFile: root + "/missing.txt", atomically: false, encoding: .utf8)
    #expect(!literal.holds(in: LocalFileSystem(), judge: nil))
  }

  @Test func aDirectoryChangedAfterTheReferenceIsNotTrusted() {
    let disk = Disk(mark: root + "/.mark")
    var recorder: SourceWalk.Recorder? = SourceWalk.Recorder(judge: disk.judge(), files: LocalFileSystem())
    try? "x".write(toFile: root + "/src/fresh.c", atomically: false, encoding: .utf8)
    _ = SourceGlob.expand(["src/*.c"], in: root, recording: &recorder)
    #expect(recorder?.finish(key: "k") == nil)
  }

  @Test func aFingerprintReusesTheRecordedExpansionOnlyWhileItHolds() throws {
    var task = TaskDefinition(name: "build", location: SourceLocation(file: "tasks.yml", line: 1, column: 1), index: 0)
    task.action = .shell([])
    task.sources = ["src/*.c"]
    let (_, found) = walk(task.sources)
    // A record whose expansion names only a.c: reusing it proves the directory was not listed again.
    let record = TaskRecord(
      fingerprint: "", operation: "", directory: "", environment: "", dependencies: "",
      sources: [FileRecord(path: "src/a.c", hash: "")], outputs: [], values: [], outputDigest: "", walk: found)
    let reused = Fingerprint(
      task: task, workingDirectory: root, environment: [], dependencies: [], previous: record, disk: disk)
    #expect(reused.sources.map(\.path) == ["src/a.c"])
    #expect(reused.walk == found)

    try "new".write(toFile: root + "/src/c.c", atomically: false, encoding: .utf8)
    let fresh = Fingerprint(
      task: task, workingDirectory: root, environment: [], dependencies: [], previous: record, disk: disk)
    #expect(fresh.sources.map(\.path) == ["src/a.c", "src/b.c", "src/c.c", "src/link.c"])

    var moved = record
    moved.walk?.key = "another pattern list"
    let other = Fingerprint(
      task: task, workingDirectory: root, environment: [], dependencies: [], previous: moved, disk: disk)
    #expect(other.sources.count == 4)
  }

  @Test func theWalkSurvivesTheStateFile() throws {
    let walk = try #require(walk(["src/*.c", "missing.txt"]).walk)
    var state = BuildState()
    state.tasks["t\tab"] = TaskRecord(
      fingerprint: "f", operation: "o", directory: ".", environment: "e", dependencies: "d",
      sources: [
        FileRecord(path: "src/a b.c", hash: "h", stamp: .init(device: 1, inode: -2, size: 3, modified: 4, changed: 5))
      ],
      outputs: [FileRecord(path: "out\nx", content: nil)], values: [("k", "v\\1")], outputDigest: "od", walk: walk)
    let decoded = try BuildState(decoding: state.encoded(), path: "state")
    let record = try #require(decoded.tasks["t\tab"])
    #expect(record.walk == walk)
    #expect(record.sources == state.tasks["t\tab"]!.sources)
    #expect(record.outputs == state.tasks["t\tab"]!.outputs)
    #expect(record.values.map { "\($0.key)=\($0.value)" } == ["k=v\\1"])
  }

  /// A state of an earlier format reads as empty (every task runs once, as the fingerprint
  /// format changed with it); a malformed walk line is damage, not a crash.
  @Test func earlierFormatsReadAsEmptyAndBadWalkLinesAreDamage() throws {
    func sealed(_ body: String) -> [UInt8] {
      let bytes = Array(body.utf8)
      let digest = bytes.withUnsafeBytes { ContentHasher.hex(ContentHasher.rawDigest($0)) }
      return Array(BuildState.header.utf8) + bytes + Array("sha256 \(digest)\n".utf8)
    }
    let old = Array("runner-state 3\nT\tt\tf\to\t.\te\td\tod\nS\ta.c\th\t1\t2\t3\t4\t5\n".utf8)
    let decoded = BuildState.decode(old, path: "state")
    #expect(decoded.state.tasks.isEmpty)
    #expect(decoded.damage == "not a state file of format 7 ('runner-state 3')")
    let good = try BuildState(
      decoding: sealed("T\tt\tf\to\t.\te\td\tod\nS\ta.c\th\t7\tx\t1\t2\t3\t4\t5\n"), path: "state")
    #expect(
      good.tasks["t"]?.sources == [
        FileRecord(
          path: "a.c", hash: "h", size: 7, executable: true,
          stamp: .init(device: 1, inode: 2, size: 3, modified: 4, changed: 5))
      ])
    for bad in [
      "T\tt\tf\to\t.\te\td\tod\nL\t/x\t1\t2\t3\t4\t5\n",  // a listing before its W line
      "T\tt\tf\to\t.\te\td\tod\nW\tk\nP\t/x\tq\tabsent\n",  // neither f nor l
      "T\tt\tf\to\t.\te\td\tod\nW\tk\nL\t/x\t-\t-\t-\t-\t-\n",  // a listing without a stamp
      "T\tt\tf\to\t.\te\td\tod\nS\ta\th\t0\t-\t1\t2\t99999999999999999999\t4\t5\n",  // out of range
      "T\tt\tf\to\t.\te\td\tod\nS\ta\th\t1\t2\t3\t4\t5\n",  // format 3's source line
      "S\ta\th\t0\t-\t1\t2\t3\t4\t5\n",  // a source before any task
    ] {
      #expect(throws: CacheError.self) { try BuildState(decoding: sealed(bad), path: "state") }
      #expect(BuildState.decode(sealed(bad), path: "state").state.tasks.isEmpty, "no part of a bad segment is used")
    }
  }
}
