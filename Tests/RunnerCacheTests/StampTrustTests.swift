import Foundation
import Glibc
import RunnerBasics
import TestSupport
import Testing

@testable import RunnerCache

/// Which stamps a record keeps: judged by the file system's own clock (a mark touched before
/// the stamps were taken), and by the run's clock for a file on another device.
@Suite final class StampTrustTests {
  let root: String

  deinit { try? FileManager.default.removeItem(atPath: root) }

  init() throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent("runner-trust-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
  }

  func write(_ name: String, _ text: String = "x\n") throws -> CacheFileSystem.Stamp {
    try text.write(toFile: root + "/" + name, atomically: false, encoding: .utf8)
    return try #require(CacheFileSystem.status(root + "/" + name)).stamp
  }

  @Test func aFileChangedAfterTheMarkIsNeverTrusted() throws {
    let disk = Disk(mark: root + "/clock")
    let judge = disk.judge()
    #expect(FileManager.default.fileExists(atPath: root + "/clock"), "the mark is touched")
    let stamp = try write("new.txt")
    #expect(!judge.trusts(stamp))
    // A clock that says the file is old changes nothing: the mark is on the same device.
    #expect(!Disk.Judge(device: stamp.device, reference: judge.reference, wall: .max / 2).trusts(stamp))
  }

  @Test func onTheMarksDeviceOnlyTheMarkCounts() throws {
    let stamp = try write("old.txt")
    let changed = max(stamp.modified, stamp.changed)
    // The clock says the file changed this very moment; the mark was touched after it.
    #expect(Disk.Judge(device: stamp.device, reference: changed + 1, wall: changed).trusts(stamp))
    // Touched in the same tick as the change: a second change could keep the stamp.
    #expect(!Disk.Judge(device: stamp.device, reference: changed, wall: .max / 2).trusts(stamp))
  }

  @Test func onAnotherDeviceTheClockJudgesWithItsWindow() throws {
    let stamp = try write("elsewhere.txt")
    let changed = max(stamp.modified, stamp.changed)
    let clock = TestClock(wall: changed)
    let disk = Disk(mark: nil, clock: clock)
    #expect(!disk.judge().trusts(stamp))
    clock.advance(by: .milliseconds(1999))
    #expect(!disk.judge().trusts(stamp))
    clock.advance(by: .milliseconds(1))
    #expect(disk.judge().trusts(stamp))
    let other = Disk.Judge(device: stamp.device &+ 1, reference: .max, wall: changed + Disk.window)
    #expect(other.trusts(stamp), "a mark on another device does not judge this file")
  }

  @Test func aMarkThatIsAFIFOIsNeitherOpenedForEverNorTrusted() throws {
    #expect(mkfifo(root + "/clock", 0o644) == 0)
    // With a reader, a write-only open of a FIFO would succeed: only the type check refuses it.
    let reader = open(root + "/clock", O_RDONLY | O_NONBLOCK)
    #expect(reader >= 0)
    defer { close(reader) }
    let stamp = try write("file.txt")
    let clock = TestClock(wall: max(stamp.modified, stamp.changed))
    let judge = Disk(mark: root + "/clock", clock: clock).judge()
    #expect(judge.device == nil, "no reference: the clock judges")
    #expect(!judge.trusts(stamp))
  }

  @Test func aMarkThatCannotBeTouchedLeavesTheClockToJudge() throws {
    let stamp = try write("file.txt")
    let changed = max(stamp.modified, stamp.changed)
    let clock = TestClock(wall: changed + Disk.window)
    let judge = Disk(mark: root + "/missing/clock", clock: clock).judge()
    #expect(judge.device == nil)
    #expect(judge.trusts(stamp))
  }

  /// The mark is touched again once the clock has moved a quarter second, not before.
  @Test func theMarkIsTouchedAgainOnlyAfterTheInterval() throws {
    let clock = TestClock()
    let disk = Disk(mark: root + "/clock", clock: clock)
    let first = disk.judge()
    var old = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
    #expect(utimensat(AT_FDCWD, root + "/clock", &old, 0) == 0)
    #expect(disk.judge().reference == first.reference, "too soon: the same reference")
    #expect(
      try #require(CacheFileSystem.status(root + "/clock")).stamp.modified == 1_000_000_000_000_000_000, "not touched")
    clock.advance(by: Disk.refreshInterval)
    let touched = try #require(CacheFileSystem.status(root + "/clock")).stamp.modified
    #expect(disk.judge().reference >= first.reference)
    #expect(try #require(CacheFileSystem.status(root + "/clock")).stamp.modified > touched, "touched again")
  }
}
