/// Resampling.
extension PixelImage {
  /// Resized to `width`×`height`; when only one is given, the other keeps the aspect ratio.
  ///
  /// Separable: for each output row, the contributing source rows are combined into one
  /// float row, which is then resampled horizontally straight into the output, so no
  /// intermediate image is allocated. Each band converts a source row to float once and
  /// keeps the rows it still needs in a ring.
  ///
  /// - Throws: `CancellationError`; `ImagingError.invalidArgument` for missing or bad sizes.
  package func resized(width: Int? = nil, height: Int? = nil, filter: ResizeFilter = .lanczos3) async throws
    -> PixelImage
  {
    let size = try ResizeGeometry.targetSize(
      sourceWidth: self.width, sourceHeight: self.height, width: width, height: height)
    return try await resized(toWidth: size.width, height: size.height, filter: filter)
  }

  /// Resized by a factor (0.5 halves both sides).
  package func resized(scale: Double, filter: ResizeFilter = .lanczos3) async throws -> PixelImage {
    let size = try ResizeGeometry.targetSize(sourceWidth: width, sourceHeight: height, scale: scale)
    return try await resized(toWidth: size.width, height: size.height, filter: filter)
  }

  private func resized(toWidth newWidth: Int, height newHeight: Int, filter: ResizeFilter) async throws -> PixelImage {
    if newWidth == width && newHeight == height { return self }
    let result = try await Self.resample(
      source: SharedPointer(base: storage.base), width: width, height: height, progress: nil, toWidth: newWidth,
      height: newHeight, filter: filter, output: PixelStorage(uninitializedCount: newWidth * newHeight * 4),
      completion: nil)
    withExtendedLifetime(self) {}
    return result
  }

  /// Resamples `width`×`height` RGBA bytes at `source` into `output`; with `progress`, each
  /// band waits for the source rows it needs, so the resize can follow a decoder down the
  /// image; with `completion`, each band reports the rows it has written, for an encoder.
  ///
  /// - Important: `source` must stay allocated until this returns.
  static func resample(
    source: SharedPointer<UInt8>, width: Int, height: Int, progress: RowProgress?, toWidth newWidth: Int,
    height newHeight: Int, filter: ResizeFilter, output: PixelStorage, completion: BandCompletion?
  ) async throws -> PixelImage {
    let horizontal = ResampleAxis(sourceSize: width, targetSize: newWidth, filter: filter)
    let vertical = ResampleAxis(sourceSize: height, targetSize: newHeight, filter: filter)
    let target = SharedPointer(base: output.base)
    try await Bands.run(rows: newHeight) { band in
      resample(
        source: source.base, width: width, height: height, target: target.base, targetWidth: newWidth,
        horizontal: horizontal, vertical: vertical, rows: band, progress: progress,
        completion: completion)
    }
    return PixelImage(width: newWidth, height: newHeight, storage: output)
  }

  /// Produces output rows `rows`: a vertical pass over float rows of the source (each
  /// source row converted once, in a ring), then a horizontal pass straight into the output.
  private static func resample(
    source: UnsafeMutablePointer<UInt8>, width: Int, height: Int, target: UnsafeMutablePointer<UInt8>,
    targetWidth: Int, horizontal: ResampleAxis, vertical: ResampleAxis, rows: Range<Int>, progress: RowProgress?,
    completion: BandCompletion?
  ) {
    let rowLength = width * 4
    let ring = SourceRing<Float>(source: source, rowLength: rowLength, height: height, size: vertical.taps)
    defer { ring.deallocate() }
    let line = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: width)
    defer { line.deallocate() }
    let lineValues = UnsafeMutableRawPointer(line).assumingMemoryBound(to: Float.self)
    vertical.weights.withUnsafeBufferPointer { verticalWeights in
      horizontal.weights.withUnsafeBufferPointer { horizontalWeights in
        horizontal.starts.withUnsafeBufferPointer { horizontalStarts in
          for y in rows {
            if Bands.isCancelled(row: y - rows.lowerBound) { return }
            let first = vertical.starts[y]
            if let progress, !progress.waitForRow(min(first + vertical.taps - 1, height - 1)) { return }
            let weights = verticalWeights.baseAddress! + y * vertical.taps
            accumulate(
              rows: { ring.row(first + $0) }, weights: weights, taps: vertical.taps, count: rowLength, into: lineValues)
            let out = target + y * targetWidth * 4
            let taps = horizontal.taps
            for x in 0..<targetWidth {
              let pixels = line + horizontalStarts[x]
              let weights = horizontalWeights.baseAddress! + x * taps
              var sum = SIMD4<Float>(repeating: 0)
              for tap in 0..<taps { sum += weights[tap] * pixels[tap] }
              PixelMap.store(sum, to: out + x * 4)
            }
            completion?.complete(y..<y + 1)
          }
        }
      }
    }
  }

  /// line[i] = Σ weights[t] × rows(t)[i], two rows per loop to halve the loads and stores of `line`.
  @inline(__always)
  private static func accumulate(
    rows: (Int) -> UnsafeMutablePointer<Float>, weights: UnsafePointer<Float>, taps: Int, count: Int,
    into line: UnsafeMutablePointer<Float>
  ) {
    let first = rows(0)
    let weight = weights[0]
    for i in 0..<count { line[i] = weight * first[i] }
    var tap = 1
    while tap + 1 < taps {
      let (row, row2) = (rows(tap), rows(tap + 1))
      let (weight, weight2) = (weights[tap], weights[tap + 1])
      for i in 0..<count { line[i] += weight * row[i] + weight2 * row2[i] }
      tap += 2
    }
    if tap < taps {
      let row = rows(tap)
      let weight = weights[tap]
      for i in 0..<count { line[i] += weight * row[i] }
    }
  }
}
