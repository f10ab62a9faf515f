/// Resampling.
extension PixelImage {
  /// Resized to `width`×`height`; when only one is given, the other keeps the aspect ratio.
  ///
  /// Separable: for each output row, the contributing source rows are combined into one
  /// float row, which is then resampled horizontally straight into the output, so no
  /// intermediate image is allocated.
  ///
  /// - Throws: `CancellationError`; `ImagingError.invalidArgument` for missing or bad sizes.
  public func resized(width: Int? = nil, height: Int? = nil, filter: ResizeFilter = .lanczos3) async throws
    -> PixelImage
  {
    let size = try ResizeGeometry.targetSize(
      sourceWidth: self.width, sourceHeight: self.height, width: width, height: height)
    return try await resized(toWidth: size.width, height: size.height, filter: filter)
  }

  /// Resized by a factor (0.5 halves both sides).
  public func resized(scale: Double, filter: ResizeFilter = .lanczos3) async throws -> PixelImage {
    let size = try ResizeGeometry.targetSize(sourceWidth: width, sourceHeight: height, scale: scale)
    return try await resized(toWidth: size.width, height: size.height, filter: filter)
  }

  private func resized(toWidth newWidth: Int, height newHeight: Int, filter: ResizeFilter) async throws -> PixelImage {
    if newWidth == width && newHeight == height { return self }
    let horizontal = ResampleAxis(sourceSize: width, targetSize: newWidth, filter: filter)
    let vertical = ResampleAxis(sourceSize: height, targetSize: newHeight, filter: filter)
    let output = PixelStorage(uninitializedCount: newWidth * newHeight * 4)
    let source = SharedPointer(base: storage.base)
    let target = SharedPointer(base: output.base)
    let sourceWidth = width
    try await Bands.run(rows: newHeight) { band in
      let rowLength = sourceWidth * 4
      let line = UnsafeMutablePointer<Float>.allocate(capacity: rowLength)
      defer { line.deallocate() }
      let pixelsLine = UnsafeMutableRawPointer(line).assumingMemoryBound(to: SIMD4<Float>.self)
      for y in band {
        if Bands.isCancelled(row: y - band.lowerBound) { return }
        let weights = vertical.weights[y]
        let first = vertical.starts[y]
        line.update(repeating: 0, count: rowLength)
        for (tap, weight) in weights.enumerated() {
          let row = source.base + (first + tap) * rowLength
          for i in 0..<rowLength { line[i] += weight * Float(row[i]) }
        }
        let out = target.base + y * newWidth * 4
        for x in 0..<newWidth {
          let start = horizontal.starts[x]
          var sum = SIMD4<Float>(repeating: 0)
          for (tap, weight) in horizontal.weights[x].enumerated() {
            sum += weight * pixelsLine[start + tap]
          }
          PixelMap.store(sum, to: out + x * 4)
        }
      }
    }
    withExtendedLifetime(self) {}
    return PixelImage(width: newWidth, height: newHeight, storage: output)
  }
}
