import Foundation
import Glibc
import RunnerBasics
import TestSupport
import Testing

@testable import RunnerCache

/// Which stamps a record keeps: judged by the file system's own clock (a mark touched before
/// the stamps were taken), and by the run's clock for a file on another device.
@Suite struct StampTrustTests {
  let root: String

  init() throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent("runner-trust-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
  }

  func write(_ name: String, _ text: String = "x\n") throws -> CacheFileSystem.Stamp {
    try text.write(toFile: root + "/" + name, atomically: false, encoding: .utf8)
    return try #require(CacheFileSystem.status(root + "/" + name)).stamp
  }

  @Test func aFileChangedAfterTheMarkIsNeverTrusted() throws {
    let trust = StampTrust(mark: root + "/clock")
    let judge = trust.judge()
    #expect(FileManager.default.fileExists(atPath: root + "/clock"), "the mark is touched")
    let stamp = try write("new.txt")
    #expect(!judge.trusts(stamp))
    // A clock that says the file is old changes nothing: the mark is on the same device.
    #expect(!StampTrust.Judge(device: stamp.device, reference: judge.reference, wall: .max / 2).trusts(stamp))
  }

  @Test func onTheMarksDeviceOnlyTheMarkCounts() throws {
    let stamp = try write("old.txt")
    let changed = max(stamp.modified, stamp.changed)
    // The clock says the file changed this very moment; the mark was touched after it.
    #expect(StampTrust.Judge(device: stamp.device, reference: changed + 1, wall: changed).trusts(stamp))
    // Touched in the same tick as the change: a second change could keep the stamp.
    #expect(!StampTrust.Judge(device: stamp.device, reference: changed, wall: .max / 2).trusts(stamp))
  }

  @Test func onAnotherDeviceTheClockJudgesWithItsWindow() throws {
    let stamp = try write("elsewhere.txt")
    let changed = max(stamp.modified, stamp.changed)
    let clock = TestClock(wall: changed)
    let trust = StampTrust(mark: nil, clock: clock)
    #expect(!trust.judge().trusts(stamp))
    clock.advance(by: .milliseconds(1999))
    #expect(!trust.judge().trusts(stamp))
    clock.advance(by: .milliseconds(1))
    #expect(trust.judge().trusts(stamp))
    let other = StampTrust.Judge(device: stamp.device &+ 1, reference: .max, wall: changed + StampTrust.window)
    #expect(other.trusts(stamp), "a mark on another device does not judge this file")
  }

  @Test func aMarkThatCannotBeTouchedLeavesTheClockToJudge() throws {
    let stamp = try write("file.txt")
    let changed = max(stamp.modified, stamp.changed)
    let clock = TestClock(wall: changed + StampTrust.window)
    let judge = StampTrust(mark: root + "/missing/clock", clock: clock).judge()
    #expect(judge.device == nil)
    #expect(judge.trusts(stamp))
  }

  /// The mark is touched again once the clock has moved a quarter second, not before.
  @Test func theMarkIsTouchedAgainOnlyAfterTheInterval() throws {
    let clock = TestClock()
    let trust = StampTrust(mark: root + "/clock", clock: clock)
    let first = trust.judge()
    var old = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
    #expect(utimensat(AT_FDCWD, root + "/clock", &old, 0) == 0)
    #expect(trust.judge().reference == first.reference, "too soon: the same reference")
    clock.advance(by: StampTrust.refreshInterval)
    let touched = try #require(CacheFileSystem.status(root + "/clock")).stamp.modified
    #expect(trust.judge().reference >= first.reference)
    #expect(try #require(CacheFileSystem.status(root + "/clock")).stamp.modified > touched, "touched again")
  }
}
