import Foundation
import Testing

@testable import RunnerKit

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
    #expect(NoOpRecord.key(of: Array("runner-noop 1\n".utf8)) == nil)
    #expect(NoOpRecord(decoding: []) == nil)
  }

  @Test func aLineOutOfPlaceIsRefusedEvenWithAGoodTrailer() {
    var body = Array("runner-noop 1\nK\tk\nF\t./a\t1\t2\t3\t4\t5\n".utf8)
    let digest = body.withUnsafeBytes { ContentHasher.hex(ContentHasher.rawDigest($0)) }
    body.append(contentsOf: "sha256 \(digest)\n".utf8)
    #expect(NoOpRecord.key(of: body) == "k")
    #expect(NoOpRecord(decoding: body) == nil, "a file before any task")
  }
}
