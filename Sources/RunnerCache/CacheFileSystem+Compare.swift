import Glibc

extension CacheFileSystem {
  /// The offset of the first byte at which two regular files differ (the shorter one's length
  /// when one is the other's start); nil when they are the same or either cannot be read.
  /// Read in 64 KiB pieces: a 300 MB output costs no more memory than a small one.
  package static func firstDifference(_ first: String, _ second: String) -> Int64? {
    guard case .success(let (one, _)) = openRegular(first) else { return nil }
    defer { close(one) }
    guard case .success(let (other, _)) = openRegular(second) else { return nil }
    defer { close(other) }
    let size = 1 << 16
    var left = [UInt8](repeating: 0, count: size)
    var right = [UInt8](repeating: 0, count: size)
    var offset: Int64 = 0
    while true {
      guard let leftCount = fill(&left, from: one), let rightCount = fill(&right, from: other) else { return nil }
      let common = min(leftCount, rightCount)
      if let index = (0..<common).first(where: { left[$0] != right[$0] }) { return offset + Int64(index) }
      if leftCount != rightCount { return offset + Int64(common) }
      if leftCount == 0 { return nil }
      offset += Int64(common)
    }
  }

  /// Reads until `buffer` is full or the file ends: the number of bytes read, nil on an error.
  private static func fill(_ buffer: inout [UInt8], from descriptor: Int32) -> Int? {
    var filled = 0
    while filled < buffer.count {
      let count = buffer.withUnsafeMutableBytes {
        Glibc.read(descriptor, $0.baseAddress! + filled, $0.count - filled)
      }
      if count < 0 {
        if errno == EINTR { continue }
        return nil
      }
      if count == 0 { break }
      filled += count
    }
    return filled
  }
}
