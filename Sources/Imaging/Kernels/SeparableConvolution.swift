/// Exact separable convolution of RGBA bytes with a symmetric kernel, edges clamped.
///
/// Each band of output rows is produced without an intermediate image. Source rows are
/// converted to float once into a ring of `2 × radius + 1` rows; the vertical pass then
/// sums ring rows (sequential, vectorisable, float only) into one padded row, and the
/// horizontal pass convolves that row in SIMD4 (one pixel per vector) into the output.
enum SeparableConvolution {
  static func apply(_ image: PixelImage, kernel: GaussianKernel) async throws -> PixelImage {
    let width = image.width
    let height = image.height
    let output = PixelStorage(count: image.storage.count)
    let source = SharedPointer(base: image.storage.base)
    let target = SharedPointer(base: output.base)
    let weights = kernel.weights
    try await Bands.run(rows: height, minimumRows: 32) { band in
      convolve(
        source: source.base, target: target.base, width: width, height: height, weights: weights, rows: band)
    }
    withExtendedLifetime(image) {}
    return PixelImage(width: width, height: height, storage: output)
  }

  private static func convolve(
    source: UnsafeMutablePointer<UInt8>, target: UnsafeMutablePointer<UInt8>, width: Int, height: Int,
    weights: [Float], rows: Range<Int>
  ) {
    let radius = weights.count - 1
    let rowLength = width * 4
    let ringSize = 2 * radius + 1
    let ring = UnsafeMutablePointer<Float>.allocate(capacity: ringSize * rowLength)
    defer { ring.deallocate() }
    // Which source row each ring slot holds (-1: none yet).
    var slotRow = [Int](repeating: -1, count: ringSize)
    // The float row, padded by `radius` pixels on each side with copies of the edge pixels.
    let padded = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: width + 2 * radius)
    defer { padded.deallocate() }
    let line = UnsafeMutableRawPointer(padded + radius).assumingMemoryBound(to: Float.self)

    /// The float copy of source row `y` (clamped to the image), converting it on first use.
    func floatRow(_ y: Int) -> UnsafeMutablePointer<Float> {
      let row = min(max(y, 0), height - 1)
      let slot = row % ringSize
      let pointer = ring + slot * rowLength
      if slotRow[slot] != row {
        let bytes = source + row * rowLength
        for i in 0..<rowLength { pointer[i] = Float(bytes[i]) }
        slotRow[slot] = row
      }
      return pointer
    }

    weights.withUnsafeBufferPointer { w in
      let w0 = w[0]
      for y in rows {
        if Bands.isCancelled(row: y - rows.lowerBound) { return }
        // Vertical pass.
        let centre = floatRow(y)
        for i in 0..<rowLength { line[i] = w0 * centre[i] }
        for k in 1...radius {
          let above = floatRow(y - k)
          let below = floatRow(y + k)
          let wk = w[k]
          for i in 0..<rowLength { line[i] += wk * (above[i] + below[i]) }
        }
        // Edge padding for the horizontal pass.
        let first = padded[radius]
        let last = padded[radius + width - 1]
        for k in 0..<radius {
          padded[k] = first
          padded[radius + width + k] = last
        }
        // Horizontal pass.
        let out = target + y * rowLength
        for x in 0..<width {
          let at = x + radius
          var sum = w0 * padded[at]
          for k in 1...radius {
            sum += w[k] * (padded[at - k] + padded[at + k])
          }
          store(sum, to: out + x * 4)
        }
      }
    }
  }

  @inline(__always)
  static func store(_ value: SIMD4<Float>, to pointer: UnsafeMutablePointer<UInt8>) {
    let clamped = (value + 0.5).clamped(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: 255))
    let bytes = SIMD4<UInt8>(truncatingIfNeeded: SIMD4<Int32>(clamped))
    UnsafeMutableRawPointer(pointer).storeBytes(of: bytes, as: SIMD4<UInt8>.self)
  }
}
