import Glibc

/// A growable run of bytes for composing output, appended to with `memcpy`: what an `[UInt8]`
/// costs per append (uniqueness and capacity checks through generic code) is most of the work
/// when each append is a few bytes and there are fifty million of them.
/// Owned by one holder at a time (not copyable), so it may be sent across threads.
package struct ByteBuffer: ~Copyable, @unchecked Sendable {
  private var base: UnsafeMutableRawPointer
  private var capacity: Int
  package private(set) var count = 0

  package init(capacity: Int = 1 << 16) {
    self.capacity = max(capacity, 64)
    base = .allocate(byteCount: self.capacity, alignment: 16)
  }

  deinit { base.deallocate() }

  package var isEmpty: Bool { count == 0 }

  package mutating func removeAll() { count = 0 }

  /// Makes room for `more` bytes.
  @inline(__always)
  package mutating func reserve(_ more: Int) {
    guard count + more > capacity else { return }
    var grown = capacity * 2
    while grown < count + more { grown *= 2 }
    let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
    larger.copyMemory(from: base, byteCount: count)
    base.deallocate()
    base = larger
    capacity = grown
  }

  @inline(__always)
  package mutating func append(_ start: UnsafeRawPointer, count length: Int) {
    reserve(length)
    memcpy(base + count, start, length)
    count += length
  }

  /// Appends each line of `lines` (each ending in a newline, the last one too) with `head`
  /// before it, the room checked once a line. A head of up to 32 bytes is four word stores and
  /// a line of up to 16 bytes two (one byte lines are 12 ns a line with a `memchr` and two
  /// `memcpy` calls each); longer ones are found with `memchr` and copied with `memcpy`.
  package mutating func appendLines(_ lines: UnsafeRawBufferPointer, eachAfter head: UnsafeRawBufferPointer) {
    guard let source = lines.baseAddress else { return }
    let total = lines.count
    let headCount = head.count
    let headStart = head.baseAddress ?? source
    var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    let headInWords = headCount <= 32
    if headInWords, headCount > 0 {
      withUnsafeMutableBytes(of: &words) { $0.baseAddress!.copyMemory(from: headStart, byteCount: headCount) }
    }
    var start = 0
    while start < total {
      var end = start
      let near = min(total, start + 16)
      while end < near, source.load(fromByteOffset: end, as: UInt8.self) != 0x0A { end += 1 }
      if end < near {
        end += 1
      } else if end < total {
        let newline = memchr(source + end, 0x0A, total - end)
        end = newline.map { source.distance(to: UnsafeRawPointer($0)) + 1 } ?? total
      }
      let length = end - start
      // 32 bytes of room past the line: the word stores may write beyond what they count.
      if count + headCount + length + 32 > capacity { reserve(headCount + length + 32) }
      let target = base + count
      if headInWords {
        target.storeBytes(of: words.0, as: UInt64.self)
        target.storeBytes(of: words.1, toByteOffset: 8, as: UInt64.self)
        target.storeBytes(of: words.2, toByteOffset: 16, as: UInt64.self)
        target.storeBytes(of: words.3, toByteOffset: 24, as: UInt64.self)
      } else {
        memcpy(target, headStart, headCount)
      }
      if length <= 16, start + 16 <= total {
        let line = target + headCount
        line.storeBytes(of: source.loadUnaligned(fromByteOffset: start, as: UInt64.self), as: UInt64.self)
        line.storeBytes(
          of: source.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self), toByteOffset: 8, as: UInt64.self)
      } else {
        memcpy(target + headCount, source + start, length)
      }
      count += headCount + length
      start = end
    }
  }

  package mutating func append(_ bytes: UnsafeRawBufferPointer) {
    guard let start = bytes.baseAddress else { return }
    append(start, count: bytes.count)
  }

  package mutating func append(_ text: String) {
    var text = text
    text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
  }

  package mutating func append(byte: UInt8) {
    reserve(1)
    base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
    count += 1
  }

  /// The bytes, valid during `body`.
  package func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
    try body(UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count))
  }

  /// Shrinks storage that one burst grew past `limit` back to `limit`.
  package mutating func trim(to limit: Int) {
    guard capacity > limit, count <= limit else { return }
    let smaller = UnsafeMutableRawPointer.allocate(byteCount: limit, alignment: 16)
    smaller.copyMemory(from: base, byteCount: count)
    base.deallocate()
    base = smaller
    capacity = limit
  }
}
