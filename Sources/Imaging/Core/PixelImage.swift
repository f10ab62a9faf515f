#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An 8-bit RGBA image with copy-on-write storage.
///
/// Pixels are stored row by row, top to bottom, four bytes per pixel (red, green,
/// blue, alpha), not premultiplied. Copies share one `PixelStorage` until one of them
/// is mutated.
package struct PixelImage: Sendable {
  /// Width in pixels.
  package let width: Int
  /// Height in pixels.
  package let height: Int
  var storage: PixelStorage

  /// Wraps storage that a kernel or codec has completely filled.
  init(width: Int, height: Int, storage: PixelStorage) {
    precondition(storage.count == width * height * 4, "pixel buffer size does not match the dimensions")
    self.width = width
    self.height = height
    self.storage = storage
  }

  /// Creates an image from RGBA bytes.
  ///
  /// - Precondition: `width` and `height` are positive and `pixels.count == width * height * 4`.
  package init(width: Int, height: Int, pixels: [UInt8]) {
    precondition(width > 0 && height > 0, "image dimensions must be positive")
    precondition(pixels.count == width * height * 4, "pixel buffer size does not match the dimensions")
    let storage = PixelStorage(count: pixels.count)
    pixels.withUnsafeBufferPointer { source in
      storage.base.update(from: source.baseAddress!, count: source.count)
    }
    self.init(width: width, height: height, storage: storage)
  }

  /// Creates an image filled with one colour.
  package init(width: Int, height: Int, fill: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) {
    precondition(width > 0 && height > 0, "image dimensions must be positive")
    let storage = PixelStorage(count: width * height * 4)
    let pattern = UInt32(fill.r) | UInt32(fill.g) << 8 | UInt32(fill.b) << 16 | UInt32(fill.a) << 24
    storage.words.update(repeating: pattern, count: width * height)
    self.init(width: width, height: height, storage: storage)
  }

  /// The RGBA bytes (a copy).
  package var pixels: [UInt8] {
    Array(UnsafeBufferPointer(start: storage.base, count: storage.count))
  }

  /// Calls `body` with the RGBA bytes, without copying them (`pixels` copies).
  package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
    try withExtendedLifetime(storage) {
      try body(UnsafeRawBufferPointer(start: storage.base, count: storage.count))
    }
  }

  /// The number of pixels.
  package var pixelCount: Int { width * height }

  /// Whether every pixel has alpha 255.
  package var isOpaque: Bool {
    let words = storage.words
    for index in 0..<pixelCount where words[index] < 0xFF00_0000 {
      return false
    }
    return true
  }

  /// The pixel at column `x`, row `y` (origin top left).
  package func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
    precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside the image")
    let base = storage.base + (y * width + x) * 4
    return (base[0], base[1], base[2], base[3])
  }

  /// Sets the pixel at column `x`, row `y`.
  package mutating func setPixel(x: Int, y: Int, _ value: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) {
    precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside the image")
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    let base = storage.base + (y * width + x) * 4
    base[0] = value.r
    base[1] = value.g
    base[2] = value.b
    base[3] = value.a
  }
}

extension PixelImage: Equatable {
  package static func == (lhs: PixelImage, rhs: PixelImage) -> Bool {
    guard lhs.width == rhs.width, lhs.height == rhs.height else { return false }
    if lhs.storage === rhs.storage { return true }
    return memcmp(lhs.storage.base, rhs.storage.base, lhs.storage.count) == 0
  }
}

extension PixelImage: CustomStringConvertible {
  package var description: String { "PixelImage(\(width)x\(height))" }
}
