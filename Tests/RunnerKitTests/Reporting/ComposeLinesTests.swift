import Testing

@testable import RunnerBasics

/// `ByteBuffer.appendLines`, which prefixes every line of a read, against the plain way of
/// doing it: every head length around its word stores, every line length around its short
/// path, at the end of the read and without a last newline, from a buffer that must grow.
struct ComposeLinesTests {
  static func plain(_ lines: [UInt8], head: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var line: [UInt8] = []
    for byte in lines {
      line.append(byte)
      if byte == 0x0A {
        out += head + line
        line = []
      }
    }
    if !line.isEmpty { out += head + line }
    return out
  }

  static func composed(_ lines: [UInt8], head: [UInt8], capacity: Int) -> [UInt8] {
    var buffer = ByteBuffer(capacity: capacity)
    head.withUnsafeBytes { head in lines.withUnsafeBytes { buffer.appendLines($0, eachAfter: head) } }
    return buffer.withBytes { Array($0) }
  }

  @Test(arguments: [0, 1, 7, 8, 9, 24, 31, 32, 33, 60])
  func everyLineLengthComesOutWithItsHead(headLength: Int) {
    let head = (0..<headLength).map { UInt8(65 + $0 % 26) }
    var lines: [UInt8] = []
    for length in [1, 2, 3, 8, 15, 16, 17, 18, 31, 40, 1, 1, 100, 2] {
      lines += (1..<length).map { UInt8(97 + $0 % 26) } + [0x0A]
    }
    for cut in [lines.count, lines.count - 1, lines.count - 3, 5, 1] {
      let read = Array(lines.prefix(cut))
      #expect(Self.composed(read, head: head, capacity: 64) == Self.plain(read, head: head), "cut \(cut)")
    }
  }

  @Test func manyOneByteLinesGrowTheBuffer() {
    let lines = [UInt8](repeating: 0x0A, count: 10_000)
    let head = Array("task | ".utf8)
    #expect(Self.composed(lines, head: head, capacity: 64) == Self.plain(lines, head: head))
  }
}
