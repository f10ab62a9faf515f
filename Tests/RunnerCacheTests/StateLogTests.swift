import Foundation
import TestSupport
import Testing

@testable import RunnerCache

/// `.runner/state` as a log: segments appended, later records replacing earlier ones, a torn
/// or damaged tail read as the end of the file, and the file written whole again when it holds
/// more superseded records than live ones.
@Suite struct StateLogTests {
  static func record(_ fingerprint: String) -> TaskRecord {
    TaskRecord(
      fingerprint: fingerprint, operation: "o", directory: ".", environment: "e", dependencies: "d",
      sources: [FileRecord(path: "src/\(fingerprint).c", hash: "h")], outputs: [], values: [("k", fingerprint)],
      outputDigest: "od")
  }

  static func state(_ names: [String]) -> BuildState {
    var state = BuildState()
    for name in names { state.tasks[name] = record(name + "-1") }
    return state
  }

  @Test func laterSegmentsReplaceAndDropRecords() throws {
    var bytes = Self.state(["a", "b", "c"]).encoded()
    bytes += BuildState.segment([("a", Self.record("a-2")), ("b", nil)])
    bytes += BuildState.segment([("d", Self.record("d-1"))])
    let decoded = BuildState.decode(bytes, path: "state")
    #expect(decoded.damage == nil)
    #expect(decoded.records == 6)
    #expect(decoded.state.tasks.keys.sorted() == ["a", "c", "d"])
    #expect(decoded.state.tasks["a"]?.fingerprint == "a-2")
    #expect(decoded.state.tasks["a"]?.values.first?.value == "a-2")
    #expect(decoded.state.tasks["c"]?.fingerprint == "c-1")
  }

  /// An append cut anywhere, or a flipped byte in it, costs that segment only.
  @Test func aDamagedTailEndsTheRead() throws {
    let whole = Self.state(["a", "b"]).encoded()
    let appended = BuildState.segment([("a", Self.record("a-2"))])
    for cut in stride(from: 1, to: appended.count, by: 7) {
      let decoded = BuildState.decode(whole + appended.prefix(cut), path: "state")
      #expect(decoded.state.tasks["a"]?.fingerprint == "a-1", "cut at \(cut)")
      #expect(decoded.state.tasks["b"]?.fingerprint == "b-1")
      #expect(decoded.damage != nil)
    }
    for index in stride(from: 0, to: appended.count, by: 5) {
      var flipped = appended
      flipped[index] ^= 0x01
      let decoded = BuildState.decode(whole + flipped, path: "state")
      #expect(decoded.state.tasks["a"]?.fingerprint == "a-1", "byte \(index) flipped")
      #expect(decoded.damage != nil)
    }
  }

  func store(_ directory: String) -> IncrementalStore {
    IncrementalStore(directory: directory, settings: CacheSettings(), environment: [:], printWarnings: false)
  }

  func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("runner-log-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// During a run, a changed record is saved once the last save is `saveInterval` old on the
  /// store's clock: no sooner, and without waiting for the machine's.
  @Test func recordsAreSavedOnTheStoresClock() throws {
    let directory = try temporaryDirectory()
    let clock = TestClock()
    let store = IncrementalStore(
      directory: directory, settings: CacheSettings(), environment: [:], printWarnings: false, clock: clock,
      touchesClock: false)
    let path = directory + "/state"
    store.update("a", Self.record("a-1"))
    #expect(!FileManager.default.fileExists(atPath: path), "not yet due")
    clock.advance(by: IncrementalStore.saveInterval + .milliseconds(1))
    store.update("b", Self.record("b-1"))
    #expect(
      Set(BuildState.decode(try Array(Data(contentsOf: URL(fileURLWithPath: path))), path: path).state.tasks.keys) == [
        "a", "b",
      ])
    store.update("c", Self.record("c-1"))
    let read = BuildState.decode(try Array(Data(contentsOf: URL(fileURLWithPath: path))), path: path)
    #expect(read.state.tasks["c"] == nil, "the next save is due only after another interval")
  }

  /// A save after one task changed appends a small segment and leaves the rest of the file
  /// as it was; the next store reads the change back.
  @Test func aChangedRecordIsAppended() throws {
    let directory = try temporaryDirectory()
    let first = store(directory)
    for name in (0..<50).map({ "t\($0)" }) { first.update(name, Self.record(name + "-1")) }
    first.save()
    let before = try #require(FileManager.default.contents(atPath: directory + "/state"))
    let second = store(directory)
    second.update("t7", Self.record("t7-2"))
    second.update("t8", nil)
    second.save()
    let after = try #require(FileManager.default.contents(atPath: directory + "/state"))
    #expect(after.prefix(before.count) == before, "the earlier bytes are untouched")
    #expect(after.count - before.count < before.count / 10)
    let third = store(directory)
    #expect(third.warnings.isEmpty)
    #expect(third.record("t7")?.fingerprint == "t7-2")
    #expect(third.record("t8") == nil)
    #expect(third.state.tasks.count == 49)
  }

  /// Once superseded records would pass a quarter of the live ones, a save writes it whole.
  @Test func aFileOfMostlySupersededRecordsIsWrittenWhole() throws {
    let directory = try temporaryDirectory()
    let initial = store(directory)
    initial.update("only", Self.record("v0"))
    initial.save()
    var sizes: [Int] = []
    for round in 1...100 {
      let next = store(directory)
      next.update("only", Self.record("v\(round)"))
      next.save()
      sizes.append(FileManager.default.contents(atPath: directory + "/state")!.count)
    }
    #expect(sizes.max()! < 70 * sizes.min()!)
    #expect(sizes.contains { $0 < sizes[0] }, "written whole at least once")
    #expect(store(directory).record("only")?.fingerprint == "v100")
  }

  /// An append cut short (a crash, or a save still being written while a dry run reads) is
  /// not worth a warning; the end of the run writes the file whole even if it changed nothing.
  @Test func aTornAppendIsRepairedAtTheEndOfTheNextRun() throws {
    let directory = try temporaryDirectory()
    let first = store(directory)
    first.update("a", Self.record("a-1"))
    first.save()
    let handle = try #require(FileHandle(forWritingAtPath: directory + "/state"))
    handle.seekToEndOfFile()
    handle.write(Data("T\ttorn".utf8))
    try handle.close()
    let second = store(directory)
    #expect(second.warnings.isEmpty)
    #expect(second.record("a")?.fingerprint == "a-1")
    second.finish()
    let decoded = BuildState.decode(Array(FileManager.default.contents(atPath: directory + "/state")!), path: "state")
    #expect(decoded.damage == nil)
    #expect(decoded.state.tasks.keys.sorted() == ["a"])
  }

  /// After damage, the next save writes the file whole rather than append after the damage.
  @Test func aDamagedFileIsWrittenWholeAtTheNextSave() throws {
    let directory = try temporaryDirectory()
    let first = store(directory)
    first.update("a", Self.record("a-1"))
    first.update("b", Self.record("b-1"))
    first.save()
    let handle = try #require(FileHandle(forWritingAtPath: directory + "/state"))
    handle.seekToEndOfFile()
    // A whole segment whose checksum does not match: damage, not an append cut short.
    handle.write(Data("T\tc\tf\to\t.\te\td\tod\nsha256 \(String(repeating: "0", count: 64))\n".utf8))
    try handle.close()
    let second = store(directory)
    #expect(second.warnings.count == 1)
    #expect(second.record("a")?.fingerprint == "a-1")
    second.update("c", Self.record("c-1"))
    second.save()
    let decoded = BuildState.decode(Array(FileManager.default.contents(atPath: directory + "/state")!), path: "state")
    #expect(decoded.damage == nil)
    #expect(decoded.state.tasks.keys.sorted() == ["a", "b", "c"])
  }
}

extension StateLogTests {
  func decodedState(_ directory: String) -> BuildState.Decoded {
    BuildState.decode(Array(FileManager.default.contents(atPath: directory + "/state") ?? Data()), path: "state")
  }

  /// A run in which nothing ran ends the log with its record; the next run that ends without
  /// one voids it, whether it changed records or none, and a record survives a whole write.
  @Test func aNoOpRecordEndsTheLogUntilTheNextRunEnds() throws {
    let directory = try temporaryDirectory()
    let record = NoOpRecord(
      key: "k", taskFile: .init(bytes: "b", content: "c"), tasks: [.init(record: "a", shown: "a")])
    let first = store(directory)
    first.update("a", Self.record("a-1"))
    first.finish(noOp: record)
    #expect(decodedState(directory).noOpRecord == record)
    #expect(decodedState(directory).state.tasks["a"]?.fingerprint == "a-1")

    let unchanged = store(directory)
    let size = try #require(FileManager.default.contents(atPath: directory + "/state")).count
    unchanged.finish()
    #expect(decodedState(directory).noOpRecord == nil, "voided by an empty segment")
    #expect(
      FileManager.default.contents(atPath: directory + "/state")?.count == size + BuildState.segment([]).count,
      "appended, not written whole")
    let quiet = store(directory)
    quiet.finish()
    let voidedSize = FileManager.default.contents(atPath: directory + "/state")?.count
    store(directory).finish()
    #expect(FileManager.default.contents(atPath: directory + "/state")?.count == voidedSize, "nothing more to void")

    store(directory).finish(noOp: record)
    #expect(decodedState(directory).noOpRecord == record)
    let changed = store(directory)
    changed.update("a", Self.record("a-2"))
    changed.finish()
    #expect(decodedState(directory).noOpRecord == nil)
    #expect(decodedState(directory).state.tasks["a"]?.fingerprint == "a-2")

    // Appends past a quarter of the file: written whole, the record last.
    let many = store(directory)
    for index in 0..<200 { many.update("t\(index)", Self.record("t-\(index)")) }
    many.finish(noOp: record)
    #expect(decodedState(directory).noOpRecord == record)
    #expect(decodedState(directory).damage == nil)
  }
}
