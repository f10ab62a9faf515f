import CRunnerShim
import Glibc

/// Whole lines of a task's output as one run of bytes, each line ending in a newline, handed
/// over straight from a read buffer: a 64 KiB read of short lines is one call, not thousands.
///
/// - Important: only valid during the call that hands it over: copy what you keep.
package struct OutputLines {
  /// One or more lines, each ending in `\n`.
  package let bytes: UnsafeRawBufferPointer

  /// - Parameter bytes: not empty, and ending in a newline.
  package init(_ bytes: UnsafeRawBufferPointer) {
    assert(bytes.last == 0x0A, "output lines end in a newline")
    self.bytes = bytes
  }

  /// Calls `body` with each line, without its newline, in order.
  package func forEach(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
    guard let base = bytes.baseAddress else { return }
    var start = 0
    while start < bytes.count {
      let newline = memchr(base + start, 0x0A, bytes.count - start).map { base.distance(to: UnsafeRawPointer($0)) }
      let end = newline ?? bytes.count
      try body(UnsafeRawBufferPointer(start: base + start, count: end - start))
      start = end + 1
    }
  }

  /// The last `limit` lines (or fewer), oldest first, without their newlines; found from the
  /// end, so a long run of lines costs nothing here.
  package func last(_ limit: Int) -> [UnsafeRawBufferPointer] {
    guard let base = bytes.baseAddress, limit > 0 else { return [] }
    var found: [UnsafeRawBufferPointer] = []
    var end = bytes.count - 1  // the newline of the line being looked at
    while end >= 0, found.count < limit {
      let previous = end == 0 ? nil : runner_memrchr(base, 0x0A, end)
      let start = previous.map { base.distance(to: UnsafeRawPointer($0)) + 1 } ?? 0
      found.append(UnsafeRawBufferPointer(start: base + start, count: end - start))
      end = start - 1
    }
    return found.reversed()
  }
}
