/// The last few source rows a band has touched, widened from bytes to `Sample`.
///
/// Every source row feeds several output rows; widening it once here keeps the kernels'
/// inner loops free of conversions. (For the 16-bit blur it matters twice: widening inside
/// the loop lets LLVM see that the values fit in 16 bits, and it then trades `pmulhuw` for
/// a slower 32-bit multiply.)
struct SourceRing<Sample: RingSample> {
  private let source: UnsafeMutablePointer<UInt8>
  private let rowLength: Int
  private let height: Int
  private let size: Int
  private let rows: UnsafeMutablePointer<Sample>
  /// The source row each slot holds, or -1.
  private let held: UnsafeMutablePointer<Int>

  /// - Parameter size: the most consecutive rows that must be readable at once.
  init(source: UnsafeMutablePointer<UInt8>, rowLength: Int, height: Int, size: Int) {
    self.source = source
    self.rowLength = rowLength
    self.height = height
    self.size = size
    rows = .allocate(capacity: size * rowLength)
    held = .allocate(capacity: size)
    held.initialize(repeating: -1, count: size)
  }

  /// Source row `y`, clamped to the image, widening it on first use.
  ///
  /// - Important: a pointer stays valid only while the rows asked for span at most `size`
  ///   consecutive rows.
  @inline(__always)
  func row(_ y: Int) -> UnsafeMutablePointer<Sample> {
    let clamped = min(max(y, 0), height - 1)
    let slot = clamped % size
    let pointer = rows + slot * rowLength
    if held[slot] != clamped {
      let bytes = source + clamped * rowLength
      for i in 0..<rowLength { pointer[i] = Sample(widening: bytes[i]) }
      held[slot] = clamped
    }
    return pointer
  }

  func deallocate() {
    rows.deallocate()
    held.deallocate()
  }
}

/// How a `SourceRing` stores a byte.
protocol RingSample {
  init(widening byte: UInt8)
}

extension UInt16: RingSample {
  /// The byte × 128, so that two of them still add up within 16 bits.
  @inline(__always)
  init(widening byte: UInt8) { self = UInt16(byte) &<< 7 }
}

extension Float: RingSample {
  @inline(__always)
  init(widening byte: UInt8) { self = Float(byte) }
}
