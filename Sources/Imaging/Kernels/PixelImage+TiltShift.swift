/// The tilt-shift (miniature) effect.
extension PixelImage {
  /// Keeps a horizontal band sharp and blurs progressively above and below it.
  ///
  /// The blur strength at a row grows smoothly (smoothstep) from 0 at the band's edge to
  /// `sigma` at the farther image edge. It is rendered by blending the original with
  /// blurs at σ/2 and σ, row by row.
  ///
  /// - Parameters:
  ///   - focus: the vertical centre of the sharp band, as a 0...1 fraction of the height.
  ///   - band: the band's height as a 0...1 fraction of the image height.
  ///   - sigma: the strongest blur, in pixels.
  package func tiltShift(focus: Double = 0.5, band: Double = 0.2, sigma: Double = 6) async throws -> PixelImage {
    guard (0...1).contains(focus), (0...1).contains(band), sigma.isFinite, sigma >= 0 else {
      throw ImagingError.invalidArgument(
        operation: "tilt-shift",
        reason: "focus and band must be in 0...1 and sigma ≥ 0 (got \(focus), \(band), \(sigma))")
    }
    let half = try await blurred(sigma: sigma / 2)
    let full = try await blurred(sigma: sigma)
    let rows = height
    let top = (focus - band / 2) * Double(rows - 1)
    let bottom = (focus + band / 2) * Double(rows - 1)
    let reach = max(max(top, Double(rows - 1) - bottom), 1)
    var levels = [Float](repeating: 0, count: rows)
    for y in 0..<rows {
      let distance = max(top - Double(y), Double(y) - bottom, 0) / reach
      let t = min(1, distance)
      levels[y] = Float(t * t * (3 - 2 * t)) * 2
    }
    let rowLevels = levels
    let halfPixels = SharedPointer(base: half.storage.base)
    let fullPixels = SharedPointer(base: full.storage.base)
    let width = self.width
    let result = try await PixelMap.map(self) { pixel, x, y in
      let level = rowLevels[y]
      if level == 0 { return pixel }
      let offset = (y * width + x) * 4
      if level <= 1 {
        return pixel + level * (PixelMap.load(halfPixels.base + offset) - pixel)
      }
      let soft = PixelMap.load(halfPixels.base + offset)
      return soft + (level - 1) * (PixelMap.load(fullPixels.base + offset) - soft)
    }
    withExtendedLifetime((half, full)) {}
    return result
  }
}
