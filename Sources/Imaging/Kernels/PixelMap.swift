/// Per-pixel kernels over row bands, in float RGBA (0...255 per channel).
enum PixelMap {
  typealias Pixel = SIMD4<Float>

  /// Applies `transform(pixel, x, y)` to every pixel; results are rounded and clamped.
  static func map(
    _ image: PixelImage, _ transform: @escaping @Sendable (Pixel, Int, Int) -> Pixel
  ) async throws -> PixelImage {
    let width = image.width
    let output = PixelStorage(uninitializedCount: image.storage.count)
    let source = SharedPointer(base: image.storage.base)
    let target = SharedPointer(base: output.base)
    try await Bands.run(rows: image.height) { band in
      for y in band {
        if Bands.isCancelled(row: y - band.lowerBound) { return }
        for x in 0..<width {
          let offset = (y * width + x) * 4
          let value = transform(load(source.base + offset), x, y)
          store(value, to: target.base + offset)
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

  // Lane by lane on purpose: the generic SIMD conversions between integer and float
  // vectors are not specialised into vector code and cost a function call per element.
  @inline(__always)
  static func load(_ pointer: UnsafeMutablePointer<UInt8>) -> Pixel {
    Pixel(Float(pointer[0]), Float(pointer[1]), Float(pointer[2]), Float(pointer[3]))
  }

  /// Stores a pixel rounded to the nearest byte (halves up) and clamped to 0...255.
  @inline(__always)
  static func store(_ value: Pixel, to pointer: UnsafeMutablePointer<UInt8>) {
    pointer[0] = byte(value[0])
    pointer[1] = byte(value[1])
    pointer[2] = byte(value[2])
    pointer[3] = byte(value[3])
  }

  @inline(__always)
  static func byte(_ value: Float) -> UInt8 {
    // NaN fails both comparisons and ends up 0.
    let clamped = value < 254.5 ? (value >= 0 ? value + 0.5 : 0) : 255
    return UInt8(truncatingIfNeeded: Int32(clamped))
  }
}
