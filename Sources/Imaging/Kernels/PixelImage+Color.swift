#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Colour kernels. All run per pixel in parallel bands and leave alpha unchanged.
extension PixelImage {
  /// Grayscale by Rec. 709 luma on the stored (gamma-encoded) values:
  /// Y′ = 0.2126 R′ + 0.7152 G′ + 0.0722 B′.
  package func grayscale() async throws -> PixelImage {
    try await PixelMap.map(self) { pixel, _, _ in
      let luma = 0.2126 * pixel[0] + 0.7152 * pixel[1] + 0.0722 * pixel[2]
      return SIMD4(luma, luma, luma, pixel[3])
    }
  }

  /// A sepia tone (the classic Microsoft matrix), blended with the original by `amount` in 0...1.
  package func sepia(amount: Double = 1) async throws -> PixelImage {
    guard (0...1).contains(amount) else {
      throw ImagingError.invalidArgument(operation: "sepia", reason: "amount \(amount) is outside 0...1")
    }
    let mix = Float(amount)
    return try await PixelMap.map(self) { pixel, _, _ in
      let (r, g, b) = (pixel[0], pixel[1], pixel[2])
      let toned = SIMD4<Float>(
        min(255, 0.393 * r + 0.769 * g + 0.189 * b),
        min(255, 0.349 * r + 0.686 * g + 0.168 * b),
        min(255, 0.272 * r + 0.534 * g + 0.131 * b),
        pixel[3])
      return pixel + mix * (toned - pixel)
    }
  }

  /// Darkens towards the corners: each pixel is scaled by `1 − strength × d²`, where d is
  /// the distance from the centre normalised so that the corners are at 1.
  package func vignette(strength: Double = 0.5) async throws -> PixelImage {
    guard (0...1).contains(strength) else {
      throw ImagingError.invalidArgument(operation: "vignette", reason: "strength \(strength) is outside 0...1")
    }
    let centreX = Float(width - 1) / 2
    let centreY = Float(height - 1) / 2
    let scale = 1 / (centreX * centreX + centreY * centreY + .ulpOfOne)
    let power = Float(strength)
    return try await PixelMap.map(self) { pixel, x, y in
      let dx = Float(x) - centreX
      let dy = Float(y) - centreY
      let factor = 1 - power * (dx * dx + dy * dy) * scale
      return SIMD4(pixel[0] * factor, pixel[1] * factor, pixel[2] * factor, pixel[3])
    }
  }

  /// Brightness and contrast, each in -1...1 with 0 meaning unchanged.
  ///
  /// Brightness adds `brightness × 255`; contrast scales the distance from mid-gray by
  /// `1 + contrast` (so -1 gives flat gray and 1 doubles contrast).
  package func adjusted(brightness: Double = 0, contrast: Double = 0) async throws -> PixelImage {
    guard (-1...1).contains(brightness), (-1...1).contains(contrast) else {
      throw ImagingError.invalidArgument(
        operation: "adjust", reason: "brightness \(brightness) and contrast \(contrast) must be in -1...1")
    }
    var table = [UInt8](repeating: 0, count: 256)
    for value in 0..<256 {
      let result = (Double(value) - 127.5) * (1 + contrast) + 127.5 + brightness * 255
      table[value] = UInt8(max(0, min(255, result.rounded())))
    }
    let lookup = table
    return try await PixelMap.map(self) { pixel, _, _ in
      SIMD4(
        Float(lookup[Int(pixel[0])]), Float(lookup[Int(pixel[1])]), Float(lookup[Int(pixel[2])]), pixel[3])
    }
  }
}
