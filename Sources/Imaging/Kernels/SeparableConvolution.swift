/// Exact separable convolution of RGBA bytes with a symmetric kernel, edges clamped.
///
/// Each band of output rows is produced without an intermediate image: for every
/// output row the vertical pass accumulates the source rows above and below into one
/// padded float row (sequential, vectorisable reads), and the horizontal pass then
/// convolves that row in SIMD4 (one pixel per vector) straight into the output.
enum SeparableConvolution {
  static func apply(_ image: PixelImage, kernel: GaussianKernel) async throws -> PixelImage {
    let width = image.width
    let height = image.height
    let output = PixelStorage(count: image.storage.count)
    let source = SharedPointer(base: image.storage.base)
    let target = SharedPointer(base: output.base)
    let weights = kernel.weights
    try await Bands.run(rows: height, rowCost: width * (kernel.radius + 1) / 4) { band in
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
    // The float row, padded by `radius` pixels on each side with copies of the edge pixels.
    let padded = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: width + 2 * radius)
    defer { padded.deallocate() }
    let line = UnsafeMutableRawPointer(padded + radius).assumingMemoryBound(to: Float.self)
    weights.withUnsafeBufferPointer { w in
      for y in rows {
        // Vertical pass.
        let centre = source + y * rowLength
        let w0 = w[0]
        for i in 0..<rowLength { line[i] = w0 * Float(centre[i]) }
        for k in 1...radius {
          let above = source + max(y - k, 0) * rowLength
          let below = source + min(y + k, height - 1) * rowLength
          let wk = w[k]
          for i in 0..<rowLength { line[i] += wk * (Float(above[i]) + Float(below[i])) }
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
