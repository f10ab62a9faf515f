import Foundation
import RunnerBasics
import TestSupport
import Testing

@testable import RunnerCache

/// Corrupted state and cache entries are discarded with a warning; never a wrong restore.
@Suite struct CacheIntegrityTests {
  static let yaml = """
    tasks:
      t:
        run: cat input.txt > out.txt && echo ran >> runs.log
        sources: [input.txt]
        outputs: [out.txt]
    """

  func harness() throws -> RunHarness {
    let harness = try RunHarness(Self.yaml)
    try harness.write("input.txt", "content\n")
    return harness
  }

  @Test(arguments: ["garbage", "truncate", "flip"])
  func corruptStateReruns(damage: String) async throws {
    let harness = try harness()
    _ = try await harness.runCached()
    let path = harness.stateDirectory + "/state"
    var bytes = [UInt8](FileManager.default.contents(atPath: path)!)
    switch damage {
    case "garbage": bytes = Array("not a state file".utf8)
    case "truncate": bytes.removeLast(bytes.count / 3)
    default: bytes[bytes.count / 2] ^= 0x20
    }
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    harness.remove(".runner/cache")
    let run = try await harness.runCached()
    #expect(run.ran == ["t"])
    #expect(run.store.warnings.count == 1)
    #expect(run.store.warnings.first?.contains("discarding the incremental state") == true)
    #expect(try await harness.runCached().ran == [])
  }

  @Test(arguments: ["truncate", "flip", "empty", "huge", "trailing"])
  func corruptCacheEntryRerunsAndIsRemoved(damage: String) async throws {
    let harness = try harness()
    _ = try await harness.runCached()
    let entries = harness.cacheEntries()
    #expect(entries.count == 1)
    var bytes = [UInt8](FileManager.default.contents(atPath: entries[0])!)
    switch damage {
    case "truncate": bytes.removeLast(10)
    case "empty": bytes = []
    case "trailing": bytes += [0]
    case "huge":
      // A size that would overflow the sums, before any checksum is checked: an error, not a trap.
      let at = bytes.firstRange(of: Array("\nL\t".utf8))!.upperBound
      let end = bytes[at...].firstIndex(of: 0x0A)!
      bytes.replaceSubrange(at..<end, with: Array("9223372036854775807".utf8))
    default:
      // Inside the stored copy of out.txt: a restore without the check would write "cOntent".
      let index = bytes.firstRange(of: Array("content".utf8))!.lowerBound + 1
      bytes[index] ^= 0x20
    }
    _ = FileManager.default.createFile(atPath: entries[0], contents: Data(bytes))
    harness.remove("out.txt")
    let run = try await harness.runCached()
    #expect(run.ran == ["t"])
    #expect(harness.file("out.txt") == "content\n")
    #expect(run.store.warnings.contains { $0.contains("discarding the cache entry of 't'") })
    // The bad entry was replaced by the re-run's.
    harness.remove("out.txt")
    #expect(try await harness.runCached().outcome("t") == "restored from cache")
  }

  @Test func changedOutputIsNotUpToDate() async throws {
    let harness = try harness()
    _ = try await harness.runCached()
    try harness.write("out.txt", "edited by hand\n")
    let run = try await harness.runCached()
    #expect(run.outcome("t") == "restored from cache")
    #expect(harness.file("out.txt") == "content\n")
  }

  @Test func evictionKeepsTheMostRecentlyUsed() async throws {
    let harness = try harness()
    for version in 1...3 {
      try harness.write("input.txt", "content \(version)\n")
      _ = try await harness.runCached()
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(harness.cacheEntries().count == 3)
    let sizes = harness.cacheEntries().map {
      (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0
    }
    try harness.write("input.txt", "content 4\n")
    _ = try await harness.runCached(settings: CacheSettings(maximumBytes: Int64(sizes.max()! * 2 + 10)))
    #expect(harness.cacheEntries().count == 2)
    // The newest (version 4) and the one before survive.
    try harness.write("input.txt", "content 3\n")
    #expect(try await harness.runCached().outcome("t") == "restored from cache")
  }

  @Test func sizesParse() {
    #expect(CacheStore.parseSize("500M") == 500 << 20)
    #expect(CacheStore.parseSize("2G") == 2 << 30)
    #expect(CacheStore.parseSize("2GiB") == 2 << 30)
    #expect(CacheStore.parseSize("1048576") == 1_048_576)
    #expect(CacheStore.parseSize("1.5k") == 1536)
    #expect(CacheStore.parseSize("lots") == nil)
    #expect(CacheStore.parseSize("-1G") == nil)
  }
}

/// Issue 18: a temporary file being written into the cache counts against its limit.
@Suite struct CacheTemporaryTests {
  @Test func temporaryFilesCountAgainstTheLimit() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-cache-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let bucket = directory.appendingPathComponent("ab")
    try FileManager.default.createDirectory(at: bucket, withIntermediateDirectories: true)
    for (index, name) in ["ab01", "ab02"].enumerated() {
      let path = bucket.appendingPathComponent(name).path
      #expect(FileManager.default.createFile(atPath: path, contents: Data(count: 1000)))
      let used = Date(timeIntervalSinceNow: Double(index) - 100)
      try FileManager.default.setAttributes([.modificationDate: used], ofItemAtPath: path)
    }
    // Being written by this (live) process: not an entry, not removable, but it takes room.
    let temporary = FilePath.temporaryName(for: bucket.appendingPathComponent("ab03").path)
    #expect(FileManager.default.createFile(atPath: temporary, contents: Data(count: 1500)))
    let store = CacheStore(directory: directory.path, maximumBytes: 3000)
    let (removed, remaining) = store.evict()
    #expect(removed == 1)
    #expect(remaining == 2500)
    #expect(!FileManager.default.fileExists(atPath: bucket.appendingPathComponent("ab01").path))
    #expect(FileManager.default.fileExists(atPath: temporary))
  }

  /// A killed writer's temporary file goes once the clock says it is `orphanAge` old, not before.
  @Test func aDeadWritersTemporaryGoesOnceTheClockSaysItIsOld() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-cache-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let bucket = directory.appendingPathComponent("cd")
    try FileManager.default.createDirectory(at: bucket, withIntermediateDirectories: true)
    // No process has this pid: the writer is dead.
    let orphan = bucket.appendingPathComponent(".cd01\(FilePath.temporaryMark)2147483646-7").path
    #expect(FileManager.default.createFile(atPath: orphan, contents: Data(count: 100)))
    let written = try #require(CacheFileSystem.status(orphan)).stamp.modified
    let clock = TestClock(wall: written)
    let store = CacheStore(directory: directory.path, maximumBytes: 1 << 30, clock: clock)
    clock.advance(by: .seconds(600))
    _ = store.evict()
    #expect(FileManager.default.fileExists(atPath: orphan), "ten minutes exactly: it stays")
    clock.advance(by: .seconds(1))
    _ = store.evict()
    #expect(!FileManager.default.fileExists(atPath: orphan))
  }
}
