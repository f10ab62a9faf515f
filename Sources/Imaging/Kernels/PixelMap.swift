/// Per-pixel kernels over row bands, in float RGBA (0...255 per channel).
enum PixelMap {
  typealias Pixel = SIMD4<Float>

  /// Applies `transform(pixel, x, y)` to every pixel; results are rounded and clamped.
  static func map(
    _ image: PixelImage, _ transform: @escaping @Sendable (Pixel, Int, Int) -> Pixel
  ) async throws -> PixelImage {
    let width = image.width
    let output = PixelStorage(count: image.storage.count)
    let source = SharedPointer(base: image.storage.base)
    let target = SharedPointer(base: output.base)
    try await Bands.run(rows: image.height) { band in
      for y in band {
        if Bands.isCancelled(row: y - band.lowerBound) { return }
        for x in 0..<width {
          let offset = (y * width + x) * 4
          let value = transform(load(source.base + offset), x, y)
          SeparableConvolution.store(value, to: target.base + offset)
        }
      }
    }
    withExtendedLifetime(image) {}
    return PixelImage(width: width, height: image.height, storage: output)
  }

  /// Combines two images of the same size pixel by pixel.
  static func combine(
    _ first: PixelImage, _ second: PixelImage, _ transform: @escaping @Sendable (Pixel, Pixel) -> Pixel
  ) async throws -> PixelImage {
    precondition(first.width == second.width && first.height == second.height, "combined images differ in size")
    let other = SharedPointer(base: second.storage.base)
    let width = first.width
    let result = try await map(first) { pixel, x, y in
      transform(pixel, load(other.base + (y * width + x) * 4))
    }
    withExtendedLifetime(second) {}
    return result
  }

  @inline(__always)
  static func load(_ pointer: UnsafeMutablePointer<UInt8>) -> Pixel {
    let bytes = UnsafeRawPointer(pointer).loadUnaligned(as: SIMD4<UInt8>.self)
    return Pixel(SIMD4<Int32>(truncatingIfNeeded: bytes))
  }
}
