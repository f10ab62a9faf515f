/// The last `2 × radius + 1` source rows a band has touched, widened to 16 bits (bytes × 128).
///
/// Every source row feeds `2 × radius + 1` output rows; widening it once here keeps the
/// vertical pass a plain 16-bit loop. (Widening inside that loop also lets LLVM see that
/// the values fit in 16 bits, and it then trades `pmulhuw` for a slower 32-bit multiply.)
struct SourceRing {
  private let source: UnsafeMutablePointer<UInt8>
  private let rowLength: Int
  private let height: Int
  private let size: Int
  private let rows: UnsafeMutablePointer<UInt16>
  /// The source row each slot holds, or -1.
  private let held: UnsafeMutablePointer<Int>

  init(source: UnsafeMutablePointer<UInt8>, rowLength: Int, height: Int, radius: Int) {
    self.source = source
    self.rowLength = rowLength
    self.height = height
    size = 2 * radius + 1
    rows = .allocate(capacity: size * rowLength)
    held = .allocate(capacity: size)
    held.initialize(repeating: -1, count: size)
  }

  /// Source row `y`, clamped to the image, widening it on first use.
  ///
  /// - Important: a pointer stays valid only while the rows asked for span at most
  ///   `2 × radius + 1` consecutive rows.
  func row(_ y: Int) -> UnsafeMutablePointer<UInt16> {
    let clamped = min(max(y, 0), height - 1)
    let slot = clamped % size
    let pointer = rows + slot * rowLength
    if held[slot] != clamped {
      let bytes = source + clamped * rowLength
      for i in 0..<rowLength { pointer[i] = UInt16(bytes[i]) &<< 7 }
      held[slot] = clamped
    }
    return pointer
  }

  func deallocate() {
    rows.deallocate()
    held.deallocate()
  }
}
