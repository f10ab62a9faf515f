import Foundation
import TestSupport
import Testing

@testable import RunnerCache

/// `.runner/state` as a log: segments appended, later records replacing earlier ones, a torn
/// or damaged tail read as the end of the file, and the file written whole again when it holds
/// more superseded records than live ones. The store's tests run on a file system in memory.
@Suite struct StateLogTests {
  let files = MemoryFileSystem()
  let directory = "/p/.runner"
  var path: String { directory + "/state" }

  init() {
    files.makeDirectory(directory)
  }

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

  func store() -> IncrementalStore {
    IncrementalStore(
      directory: directory, settings: CacheSettings(), environment: [:], printWarnings: false, files: files)
  }

  /// The state file's bytes in the memory file system (empty when there is none).
  func stateBytes() -> [UInt8] {
    (try? files.read(path)) ?? []
  }

  /// During a run, a changed record is saved once the last save is `saveInterval` old on the
  /// store's clock: no sooner, and without waiting for the machine's.
  @Test func recordsAreSavedOnTheStoresClock() throws {
    let clock = TestClock()
    let store = IncrementalStore(
      directory: directory, settings: CacheSettings(), environment: [:], printWarnings: false, clock: clock,
      touchesClock: false, files: files)
    store.update("a", Self.record("a-1"))
    #expect(files.status(path, follow: true) == nil, "not yet due")
    clock.advance(by: IncrementalStore.saveInterval + .milliseconds(1))
    store.update("b", Self.record("b-1"))
    #expect(Set(BuildState.decode(stateBytes(), path: path).state.tasks.keys) == ["a", "b"])
    store.update("c", Self.record("c-1"))
    let read = BuildState.decode(stateBytes(), path: path)
    #expect(read.state.tasks["c"] == nil, "the next save is due only after another interval")
  }

  /// A save after one task changed appends a small segment and leaves the rest of the file
  /// as it was; the next store reads the change back.
  @Test func aChangedRecordIsAppended() throws {
    let first = store()
    for name in (0..<50).map({ "t\($0)" }) { first.update(name, Self.record(name + "-1")) }
    first.save()
    let before = stateBytes()
    let second = store()
    second.update("t7", Self.record("t7-2"))
    second.update("t8", nil)
    second.save()
    let after = stateBytes()
    #expect(Array(after.prefix(before.count)) == before, "the earlier bytes are untouched")
    #expect(after.count - before.count < before.count / 10)
    let third = store()
    #expect(third.warnings.isEmpty)
    #expect(third.record("t7")?.fingerprint == "t7-2")
    #expect(third.record("t8") == nil)
    #expect(third.state.tasks.count == 49)
  }

  /// Once superseded records would pass a quarter of the live ones, a save writes it whole.
  @Test func aFileOfMostlySupersededRecordsIsWrittenWhole() throws {
    let initial = store()
    initial.update("only", Self.record("v0"))
    initial.save()
    var sizes: [Int] = []
    for round in 1...100 {
      let next = store()
      next.update("only", Self.record("v\(round)"))
      next.save()
      sizes.append(stateBytes().count)
    }
    #expect(sizes.max()! < 70 * sizes.min()!)
    #expect(sizes.contains { $0 < sizes[0] }, "written whole at least once")
    #expect(store().record("only")?.fingerprint == "v100")
  }

  /// An append cut short (a crash, or a save still being written while a dry run reads) is
  /// not worth a warning; the end of the run writes the file whole even if it changed nothing.
  @Test func aTornAppendIsRepairedAtTheEndOfTheNextRun() throws {
    let first = store()
    first.update("a", Self.record("a-1"))
    first.save()
    try files.append(path, Array("T\ttorn".utf8))
    let second = store()
    #expect(second.warnings.isEmpty)
    #expect(second.record("a")?.fingerprint == "a-1")
    second.finish()
    let decoded = BuildState.decode(stateBytes(), path: "state")
    #expect(decoded.damage == nil)
    #expect(decoded.state.tasks.keys.sorted() == ["a"])
  }

  /// After damage, the next save writes the file whole rather than append after the damage.
  @Test func aDamagedFileIsWrittenWholeAtTheNextSave() throws {
    let first = store()
    first.update("a", Self.record("a-1"))
    first.update("b", Self.record("b-1"))
    first.save()
    // A whole segment whose checksum does not match: damage, not an append cut short.
    try files.append(path, Array("T\tc\tf\to\t.\te\td\tod\nsha256 \(String(repeating: "0", count: 64))\n".utf8))
    let second = store()
    #expect(second.warnings.count == 1)
    #expect(second.record("a")?.fingerprint == "a-1")
    second.update("c", Self.record("c-1"))
    second.save()
    let decoded = BuildState.decode(stateBytes(), path: "state")
    #expect(decoded.damage == nil)
    #expect(decoded.state.tasks.keys.sorted() == ["a", "b", "c"])
  }
}

extension StateLogTests {
  /// A state another version of runner wrote (its header names another format): discarded with
  /// a warning that every task runs once, and written whole in this format at the next save.
  @Test func aForeignStateIsDiscardedAndWrittenAgain() throws {
    let first = store()
    first.update("a", Self.record("a-1"))
    first.save()
    files.corrupt(path) { Array("runner-state 99\n".utf8) + $0.drop { $0 != UInt8(ascii: "\n") }.dropFirst() }
    let second = store()
    #expect(second.warnings.count == 1)
    #expect(second.warnings.first?.contains("another version of runner") == true, "\(second.warnings)")
    #expect(second.state.tasks.isEmpty)
    second.update("b", Self.record("b-1"))
    second.save()
    let decoded = decodedState()
    #expect(decoded.damage == nil)
    #expect(decoded.state.tasks.keys.sorted() == ["b"])
  }

  /// A byte changed in the whole write (its stamp kept: no stamp sees it): the records from the
  /// damage on are gone, with a warning; the file is written whole again at the next save.
  @Test func damageInTheFirstSegmentIsSaidAndRepaired() throws {
    let first = store()
    for name in ["a", "b", "c"] { first.update(name, Self.record(name + "-1")) }
    first.save()
    let stamp = files.status(path, follow: true)?.stamp
    files.corrupt(path) { bytes in
      var bytes = bytes
      bytes[bytes.count / 2] ^= 0x01
      return bytes
    }
    #expect(files.status(path, follow: true)?.stamp == stamp)
    let second = store()
    #expect(second.warnings.count == 1)
    #expect(second.warnings.first?.contains("damaged") == true, "\(second.warnings)")
    #expect(second.state.tasks.isEmpty)
    second.finish()
    #expect(decodedState().damage == nil, "written whole, even by a run that changed nothing")
  }

  /// The store wrote only to the file system it was given: a directory that exists on the
  /// machine as well stays empty there.
  @Test func theStoreWritesThroughItsFileSystem() throws {
    let machine = FileManager.default.temporaryDirectory.appendingPathComponent("runner-memory-\(UUID().uuidString)")
      .path
    try FileManager.default.createDirectory(atPath: machine, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: machine) }
    files.makeDirectory(machine)
    let store = IncrementalStore(
      directory: machine, settings: CacheSettings(), environment: [:], printWarnings: false, files: files)
    store.update("a", Self.record("a-1"))
    store.finish()
    #expect(BuildState.decode(try files.read(machine + "/state"), path: "state").state.tasks.keys.sorted() == ["a"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: machine).isEmpty)
  }

  /// A save that cannot write (a full disk) warns and loses nothing: the next save writes
  /// every record, whole.
  @Test func aFailedSaveIsWrittenWholeByTheNext() throws {
    let first = store()
    first.update("a", Self.record("a-1"))
    first.save()
    let second = store()
    second.update("b", Self.record("b-1"))
    files.failWrites(true)
    second.save()
    #expect(second.warnings.count == 1)
    #expect(second.warnings.first?.contains("cannot write the incremental state") == true, "\(second.warnings)")
    #expect(decodedState().state.tasks["b"] == nil)
    files.failWrites(false)
    let size = stateBytes().count
    second.finish()
    let decoded = decodedState()
    #expect(decoded.damage == nil)
    #expect(decoded.state.tasks.keys.sorted() == ["a", "b"])
    #expect(decoded.wholeBytes == stateBytes().count, "written whole, not appended to the \(size) bytes before")
  }
  func decodedState() -> BuildState.Decoded {
    BuildState.decode(stateBytes(), path: "state")
  }

  /// A run in which nothing ran ends the log with its record; the next run that ends without
  /// one voids it, whether it changed records or none, and a record survives a whole write.
  @Test func aNoOpRecordEndsTheLogUntilTheNextRunEnds() throws {
    let record = NoOpRecord(
      key: "k", taskFile: .init(bytes: "b", content: "c"), tasks: [.init(record: "a", shown: "a")])
    let first = store()
    first.update("a", Self.record("a-1"))
    first.finish(noOp: record)
    #expect(decodedState().noOpRecord == record)
    #expect(decodedState().state.tasks["a"]?.fingerprint == "a-1")

    let unchanged = store()
    let size = stateBytes().count
    unchanged.finish()
    #expect(decodedState().noOpRecord == nil, "voided by an empty segment")
    #expect(
      stateBytes().count == size + BuildState.segment([]).count,
      "appended, not written whole")
    let quiet = store()
    quiet.finish()
    let voidedSize = stateBytes().count
    store().finish()
    #expect(stateBytes().count == voidedSize, "nothing more to void")

    store().finish(noOp: record)
    #expect(decodedState().noOpRecord == record)
    let changed = store()
    changed.update("a", Self.record("a-2"))
    changed.finish()
    #expect(decodedState().noOpRecord == nil)
    #expect(decodedState().state.tasks["a"]?.fingerprint == "a-2")

    // Appends past a quarter of the file: written whole, the record last.
    let many = store()
    for index in 0..<200 { many.update("t\(index)", Self.record("t-\(index)")) }
    many.finish(noOp: record)
    #expect(decodedState().noOpRecord == record)
    #expect(decodedState().damage == nil)
  }
}
