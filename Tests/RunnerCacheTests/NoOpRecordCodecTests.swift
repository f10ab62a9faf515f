import Foundation
import Testing

@testable import RunnerCache

/// `.runner/noop` written and read back, and every kind of damage refused.
@Suite struct NoOpRecordCodecTests {
  static let record = NoOpRecord(
    key: "k 1 2 3",
    tasks: [
      .init(name: "group", note: nil, walk: nil, files: []),
      .init(
        name: "odd\tname\nwith \\ escapes", note: "up to date",
        walk: SourceWalk(
          key: "",
          listings: [.init(path: "./src", stamp: .init(device: 1, inode: -2, size: 0, modified: .max, changed: .min))],
          probes: [
            .init(path: "./link", follow: false, kind: .other), .init(path: "./gone", follow: true, kind: .absent),
          ]),
        files: [.init(path: "/abs/a b.c", stamp: .init(device: 65024, inode: 7, size: 48, modified: 10, changed: 20))]),
    ])

  @Test func aRecordReadsBackAsWritten() throws {
    let bytes = Self.record.encoded()
    let decoded = try #require(NoOpRecord(decoding: bytes))
    #expect(decoded.key == Self.record.key)
    #expect(decoded.tasks == Self.record.tasks)
    #expect(NoOpRecord.key(of: bytes) == "k 1 2 3")
    // The numbers are written as `BuildState` writes them.
    #expect(String(decoding: bytes, as: UTF8.self).contains("\t9223372036854775807\t-9223372036854775808\n"))
  }

  @Test func truncatedFlippedOrForeignBytesAreRefused() {
    let bytes = Self.record.encoded()
    #expect(NoOpRecord(decoding: Array(bytes.dropLast(1))) == nil)
    #expect(NoOpRecord(decoding: Array(bytes.prefix(bytes.count / 2))) == nil)
    var flipped = bytes
    flipped[40] ^= 1
    #expect(NoOpRecord(decoding: flipped) == nil)
    #expect(NoOpRecord(decoding: Array("runner-state 2\n".utf8)) == nil)
    #expect(NoOpRecord.key(of: Array("runner-noop 2\n".utf8)) == nil, "an older format")
    #expect(NoOpRecord(decoding: []) == nil)
  }

  @Test func aLineOutOfPlaceIsRefusedEvenWithAGoodTrailer() {
    var body = Array("runner-noop 3\nK\tk\tb\tc\nF\t./a\t1\t2\t3\t4\t5\n".utf8)
    let digest = body.withUnsafeBytes { ContentHasher.hex(ContentHasher.rawDigest($0)) }
    body.append(contentsOf: "sha256 \(digest)\n".utf8)
    #expect(NoOpRecord.key(of: body) == "k")
    #expect(NoOpRecord(decoding: body) == nil, "a file before any task")
  }
}

extension NoOpRecordCodecTests {
  static func file(_ name: String, changed: Int64) -> NoOpRecord.File {
    .init(path: name, stamp: .init(device: 1, inode: 1, size: 1, modified: changed / 2, changed: changed))
  }

  @Test func theHeadRepeatsTheFilesChangedLastNewestFirst() throws {
    var files = (0..<100).map { Self.file("f\($0)", changed: Int64(($0 * 37) % 100)) }
    files.append(Self.file("tie", changed: 99))
    let record = NoOpRecord(
      key: "k",
      tasks: [
        .init(name: "a", note: nil, walk: nil, files: Array(files[..<50])),
        .init(name: "b", note: "up to date", walk: nil, files: Array(files[50...])),
      ])
    let recent = record.recentFiles()
    #expect(recent.count == NoOpRecord.recentCount)
    let expected: [Int64] = [99, 99] + (37...98).reversed()
    #expect(recent.map(\.stamp.changed) == expected)
    #expect(recent.first?.path != "tie", "among equals, the one met first")
    let bytes = record.encoded()
    let head = try #require(NoOpRecord.head(of: bytes))
    #expect(head.key == "k" && head.recent == recent)
    #expect(NoOpRecord(decoding: bytes)?.tasks == record.tasks)
    // Cut anywhere in the head, only whole lines are read.
    for cut in stride(from: 20, to: 2000, by: 7) {
      guard let partial = NoOpRecord.head(of: Array(bytes.prefix(cut))) else { continue }
      #expect(partial.key == "k")
      #expect(recent.starts(with: partial.recent))
    }
  }
}

extension NoOpRecordCodecTests {
  /// Bytes that pass the trailer check but are mangled in between (a fixed-seed mutation run,
  /// the trailer recomputed each time): the reader refuses them or reads a record, never traps.
  @Test func mangledBodiesWithAGoodTrailerNeverTrap() {
    let valid = Self.record.encoded()
    let body = Array(valid.dropLast("sha256 ".utf8.count + 65))
    var generator = SplitMix(seed: 0x6e6f_6f70)
    let alphabet = Array("\t\n\\-+0123456789KTWLPFRflabsentdirectoryother ".utf8)
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
      if let record = NoOpRecord(decoding: bytes) {
        read += 1
        _ = record.encoded()
      }
      _ = NoOpRecord.head(of: Array(bytes.prefix(Int(generator.next() % 600))))
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
