import Glibc

/// Writes the line format of the files in `.runner`: a kind letter, then tab-separated fields
/// with `\\`, tab and newline escaped, then a newline (`BuildState.split` reads a line back).
///
/// Field by field, and numbers without going through `String`: the state of 10 000 tasks is
/// 60 000 lines, written at the end of every run that changed a record.
struct LineWriter {
  var bytes: [UInt8] = []

  mutating func begin(_ kind: Unicode.Scalar) {
    bytes.append(UInt8(ascii: kind))
  }

  mutating func end() {
    bytes.append(UInt8(ascii: "\n"))
  }

  mutating func field(_ text: String) {
    bytes.append(UInt8(ascii: "\t"))
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
      case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
      case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
      default: bytes.append(byte)
      }
    }
  }

  /// A decimal field, as `String(value)` spells it.
  mutating func number(_ value: Int64) {
    bytes.append(UInt8(ascii: "\t"))
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    var low = bytes.count
    repeat {
      bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
      magnitude /= 10
    } while magnitude > 0
    var high = bytes.count - 1
    while low < high {
      bytes.swapAt(low, high)
      low += 1
      high -= 1
    }
  }

  /// Five fields: device, inode, size, mtime, ctime; `-` for each without a stamp.
  mutating func stamp(_ stamp: CacheFileSystem.Stamp?) {
    guard let stamp else {
      for _ in 0..<5 { field("-") }
      return
    }
    for value in [stamp.device, stamp.inode, stamp.size, stamp.modified, stamp.changed] { number(value) }
  }

  mutating func line(_ kind: Unicode.Scalar, _ fields: [String]) {
    begin(kind)
    for text in fields { field(text) }
    end()
  }

  /// A path and its stamp.
  mutating func line(_ kind: Unicode.Scalar, path: String, stamp: CacheFileSystem.Stamp) {
    begin(kind)
    field(path)
    self.stamp(stamp)
    end()
  }

  /// A file record: path, content hash, size, `x` if executable (else `-`), stamp.
  mutating func line(_ kind: Unicode.Scalar, file: FileRecord) {
    begin(kind)
    field(file.path)
    field(file.content?.hash ?? "-")
    number(file.content?.size ?? 0)
    field(file.executable ? "x" : "-")
    stamp(file.stamp)
    end()
  }

  /// Ends the file with its trailer, `sha256 <hex of every byte above it>`.
  mutating func appendTrailer() {
    let digest = bytes.withUnsafeBytes { ContentHasher.hex(ContentHasher.rawDigest($0)) }
    bytes.append(contentsOf: "sha256 \(digest)\n".utf8)
  }

  /// The segment's trailer: where its line starts and ends, and whether it matches.
  struct SegmentTrailer {
    var start: Int
    var end: Int
    var matches: Bool
  }

  /// The first trailer line (`sha256 <hex>`) at or after `start`, and whether it holds the
  /// digest of `bytes[start..<trailer]`; nil when the file ends first. No other line begins
  /// with `s`: each begins with its kind letter.
  static func trailer(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> SegmentTrailer? {
    let prefix = "sha256 ".utf8
    let length = prefix.count + 64 + 1
    guard let base = bytes.baseAddress else { return nil }
    var lineStart = start
    while lineStart < bytes.count {
      if bytes.count - lineStart >= prefix.count, zip(bytes[lineStart...], prefix).allSatisfy({ $0 == $1 }) {
        guard bytes.count - lineStart >= length, bytes[lineStart + length - 1] == UInt8(ascii: "\n") else {
          return nil
        }
        let digest = ContentHasher.hex(
          ContentHasher.rawDigest(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<lineStart]))))
        let written = String(decoding: bytes[(lineStart + prefix.count)..<(lineStart + length - 1)], as: UTF8.self)
        return SegmentTrailer(start: lineStart, end: lineStart + length, matches: written == digest)
      }
      guard let newline = memchr(base + lineStart, Int32(UInt8(ascii: "\n")), bytes.count - lineStart) else {
        return nil
      }
      lineStart = base.distance(to: newline.assumingMemoryBound(to: UInt8.self)) + 1
    }
    return nil
  }

  /// What a whole file's trailer (one segment from the first byte) says of the bytes above it.
  enum Trailer: Equatable {
    /// The trailer matches; the body is `bytes[..<end]`.
    case body(end: Int)
    case truncated
    case mismatch
  }

  static func checkTrailer(_ bytes: [UInt8]) -> Trailer {
    let length = "sha256 ".utf8.count + 64 + 1
    guard bytes.count >= length else { return .truncated }
    let end = bytes.count - length
    let digest = bytes.withUnsafeBytes {
      ContentHasher.hex(ContentHasher.rawDigest(UnsafeRawBufferPointer(rebasing: $0[..<end])))
    }
    return String(decoding: bytes[end...], as: UTF8.self) == "sha256 \(digest)\n" ? .body(end: end) : .mismatch
  }
}
