import Foundation
import Testing

@testable import RunnerCache

/// The no-op record as the last segment of the state log: written and read back, found from
/// the end of the file alone, voided by any later segment, and every kind of damage refused.
@Suite struct NoOpRecordCodecTests {
  static let record = NoOpRecord(
    key: "k 1 2 3", taskFile: .init(bytes: "b", content: "c"),
    tasks: [
      .init(record: nil, shown: "group"),
      .init(record: "odd\tname\nwith \\ escapes", shown: "odd\\tname", fingerprint: "f1"),
    ],
    recent: [
      .init(path: "/abs/a b.c", stamp: .init(device: 65024, inode: 7, size: 48, modified: 10, changed: 20)),
      .init(path: "./src", stamp: .init(device: 1, inode: -2, size: 0, modified: .max, changed: .min)),
    ], concurrency: 3)

  static var log: [UInt8] { StateLogTests.state(["a", "b"]).encoded() + record.segment() }

  @Test func aRecordReadsBackAsWrittenAfterTheRecords() throws {
    let decoded = BuildState.decode(Self.log, path: "state")
    #expect(decoded.damage == nil)
    #expect(decoded.noOpRecord == Self.record)
    #expect(decoded.state.tasks.keys.sorted() == ["a", "b"], "a record changes no task's record")
    // The numbers are written as `BuildState` writes them.
    #expect(String(decoding: Self.log, as: UTF8.self).contains("\t9223372036854775807\t-9223372036854775808\n"))
    let read = try #require(NoOpRecord.read(log: Self.log, path: "state"))
    #expect(read.record == Self.record)
  }

  /// The replay reads the log for stamps only: what it checks is what the full read has.
  @Test func aStampsOnlyReadKeepsWhatTheCheckNeeds() throws {
    var record = StateLogTests.record("a-1")
    record.directory = "sub"
    record.sources = [
      FileRecord(
        path: "src/a\tb.c", hash: "h1", size: 3, stamp: .init(device: 1, inode: 2, size: 3, modified: 4, changed: 5))
    ]
    record.outputs = [
      FileRecord(path: "out/a.o", hash: "h2", stamp: .init(device: 1, inode: 9, size: 0, modified: 6, changed: 7))
    ]
    record.walk = SourceWalk(
      key: "w", listings: [.init(path: "./src", stamp: .init(device: 1, inode: 3, size: 0, modified: 1, changed: 1))],
      probes: [.init(path: "./x", follow: true, kind: .absent)])
    record.outcome = .ran
    record.why = "no record"
    var state = BuildState()
    state.tasks["a"] = record
    let bytes = state.encoded() + BuildState.segment([("b", StateLogTests.record("b-1"))]) + Self.record.segment()
    let full = try #require(BuildState.decode(bytes, path: "state").state.tasks["a"])
    let (light, found) = try #require(NoOpRecord.read(log: bytes, path: "state"))
    let read = try #require(light.tasks["a"])
    #expect(found == Self.record)
    #expect(light.tasks.keys.sorted() == ["a", "b"])
    #expect(read.fingerprint == full.fingerprint && read.directory == full.directory && read.walk == full.walk)
    #expect(read.sources.map(\.path) == full.sources.map(\.path))
    #expect(read.sources.map(\.stamp) == full.sources.map(\.stamp))
    #expect(read.outputs.map(\.stamp) == full.outputs.map(\.stamp))
    let files = NoOpRecord.files(of: read, base: "/p")
    #expect(files != nil && files == NoOpRecord.files(of: full, base: "/p"))
    #expect(files?.first?.path == "/p/sub/src/a\tb.c")
  }

  @Test func anySegmentAfterTheRecordVoidsIt() {
    let voided = BuildState.decode(Self.log + BuildState.segment([]), path: "state")
    #expect(voided.damage == nil && voided.noOpRecord == nil)
    let changed = BuildState.decode(Self.log + BuildState.segment([("a", nil)]), path: "state")
    #expect(changed.noOpRecord == nil && changed.state.tasks["a"] == nil)
    let again = BuildState.decode(Self.log + BuildState.segment([]) + Self.record.segment(), path: "state")
    #expect(again.noOpRecord == Self.record)
  }

  @Test func truncatedFlippedOrOlderFilesYieldNoRecord() {
    let bytes = Self.log
    #expect(NoOpRecord.read(log: Array(bytes.dropLast(1)), path: "state") == nil)
    var flipped = bytes
    flipped[bytes.count - 100] ^= 1
    #expect(NoOpRecord.read(log: flipped, path: "state") == nil)
    var older = bytes
    older.replaceSubrange(0..<15, with: Array("runner-state 5\n".utf8))
    #expect(NoOpRecord.read(log: older, path: "state") == nil, "a file to be written whole")
    #expect(BuildState.decode(older, path: "state").previousVersion)
  }

  /// An earlier runner's record has no concurrency: the log reads without damage, and the end
  /// of the file does not offer the record for a replay (the full path writes a new one).
  @Test func anEarlierRunnersRecordIsReadButNotReplayed() throws {
    var segment = Array("U\ta\ta\tf\nN\tk\tb\tc\n".utf8)
    let digest = segment.withUnsafeBytes { ContentHasher.hex(ContentHasher.rawDigest($0)) }
    segment.append(contentsOf: "sha256 \(digest)\n".utf8)
    let log = StateLogTests.state(["a"]).encoded() + segment
    let decoded = BuildState.decode(log, path: "state")
    #expect(decoded.damage == nil)
    #expect(decoded.noOpRecord?.key == "k" && decoded.noOpRecord?.concurrency == 0)
    #expect(NoOpRecord.tail(of: Array(log.suffix(200))) == nil)
    #expect(NoOpRecord.tail(of: Array(Self.log.suffix(300)))?.key == Self.record.key)
  }

  @Test func aLineOutOfPlaceIsRefusedEvenWithAGoodTrailer() {
    let whole = StateLogTests.state(["a"]).encoded()
    for body in [
      "N\tk\tb\tc\nU\ta\ta\tf\n", "U\ta\ta\tf\n", "U\ta\ta\nN\tk\tb\tc\n", "G\tg\nT\tx\t\t\t\t\t\t\nN\tk\tb\tc\n",
      "R\t./a\t1\t2\t3\t4\nN\tk\tb\tc\n",
    ] {
      var segment = Array(body.utf8)
      let digest = segment.withUnsafeBytes { ContentHasher.hex(ContentHasher.rawDigest($0)) }
      segment.append(contentsOf: "sha256 \(digest)\n".utf8)
      let decoded = BuildState.decode(whole + segment, path: "state")
      #expect(decoded.damage != nil && decoded.noOpRecord == nil, "\(body)")
      #expect(decoded.state.tasks["a"] != nil)
    }
  }
}

extension NoOpRecordCodecTests {
  static func file(_ name: String, changed: Int64) -> NoOpRecord.File {
    .init(path: name, stamp: .init(device: 1, inode: 1, size: 1, modified: changed / 2, changed: changed))
  }

  @Test func theEndOfTheFileHoldsTheKeyAndTheFilesChangedLastNewestFirst() throws {
    var files = (0..<100).map { Self.file("f\($0)", changed: Int64(($0 * 37) % 100)) }
    files.append(Self.file("tie", changed: 99))
    let recent = NoOpRecord.recentFiles(files)
    #expect(recent.count == NoOpRecord.recentCount)
    let expected: [Int64] = [99, 99] + (37...98).reversed()
    #expect(recent.map(\.stamp.changed) == expected)
    #expect(recent.first?.path != "tie", "among equals, the one met first")
    let record = NoOpRecord(
      key: "k", taskFile: .init(bytes: "b", content: "c"),
      tasks: (0..<500).map { .init(record: "t\($0)", shown: "t\($0)") }, recent: recent)
    let bytes = StateLogTests.state(["a"]).encoded() + record.segment()
    let tail = try #require(NoOpRecord.tail(of: bytes))
    #expect(tail.key == "k" && tail.taskFile == record.taskFile && tail.recent == recent)
    // Cut anywhere before the end, only whole lines are read: the newest files come first.
    var partials = 0
    for cut in stride(from: 80, to: 3000, by: 7) {
      guard let partial = NoOpRecord.tail(of: Array(bytes.suffix(cut))) else { continue }
      partials += 1
      #expect(partial.key == "k")
      #expect(recent.starts(with: partial.recent))
    }
    #expect(partials > 300)
    #expect(NoOpRecord.tail(of: Array((bytes + BuildState.segment([])).suffix(4000))) == nil, "voided")
    #expect(NoOpRecord.tail(of: StateLogTests.state(["a"]).encoded()) == nil)
  }

  /// A record that does not vouch for every task reads back whole, but its end says it is no
  /// record to replay, and its check fails without a `stat`.
  @Test func aRecordOfSomeTasksReadsBackButIsNoRecordToReplay() throws {
    var record = Self.record
    record.unvouched = ["new\tone", "other"]
    let bytes = StateLogTests.state(["a", "b"]).encoded() + record.segment()
    let read = try #require(NoOpRecord.read(log: bytes, path: "state"))
    #expect(read.record == record)
    #expect(read.record?.isComplete == false)
    #expect(NoOpRecord.tail(of: bytes) == nil)
    #expect(NoOpRecord.tail(of: StateLogTests.state(["a", "b"]).encoded() + Self.record.segment()) != nil)
    let groups = NoOpRecord(key: "k", tasks: [.init(record: nil, shown: "all")])
    #expect(groups.holds(in: BuildState(), base: "/"))
    var partial = groups
    partial.unvouched = ["x"]
    #expect(!partial.holds(in: BuildState(), base: "/"))
  }
}

extension NoOpRecordCodecTests {
  /// Bytes that pass the trailer check but are mangled in between (a fixed-seed mutation run,
  /// the trailer recomputed each time): the reader refuses them or reads a record, never traps.
  @Test func mangledRecordsWithAGoodTrailerNeverTrap() {
    let whole = StateLogTests.state(["a"]).encoded()
    let valid = Self.record.segment()
    let body = Array(valid.dropLast("sha256 ".utf8.count + 65))
    var generator = SplitMix(seed: 0x6e6f_6f70)
    let alphabet = Array("\t\n\\-+0123456789UGRNTflabsentdirectoryother ".utf8)
    var read = 0
    for _ in 0..<3000 {
      var bytes = body
      for _ in 0..<Int(generator.next() % 4 + 1) {
        let index = Int(generator.next() % UInt64(bytes.count))
        switch generator.next() % 3 {
        case 0: bytes[index] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
        case 1: bytes.remove(at: index)
        default: bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: index)
        }
      }
      let digest = bytes.withUnsafeBytes { ContentHasher.hex(ContentHasher.rawDigest($0)) }
      bytes.append(contentsOf: "sha256 \(digest)\n".utf8)
      if let record = BuildState.decode(whole + bytes, path: "state").noOpRecord {
        read += 1
        _ = record.segment()
      }
      _ = NoOpRecord.tail(of: Array((whole + bytes).suffix(Int(generator.next() % 600))))
    }
    #expect(read > 0 && read < 3000, "some mutations keep a readable record, most do not")
  }
}

/// A small deterministic generator for the mutation test.
struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
