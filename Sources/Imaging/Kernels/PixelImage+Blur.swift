/// Gaussian blur and unsharp mask.
extension PixelImage {
  /// A Gaussian blur with standard deviation `sigma` pixels (kernel radius ceil(3σ)),
  /// applied separably and exactly to all four channels; edges are clamped.
  ///
  /// - Throws: `CancellationError` if the task is cancelled (checked between row bands);
  ///   `ImagingError.invalidArgument` for a negative or non-finite sigma.
  package func blurred(sigma: Double) async throws -> PixelImage {
    guard sigma.isFinite, sigma >= 0 else {
      throw ImagingError.invalidArgument(operation: "blur", reason: "sigma \(sigma) must be a finite number ≥ 0")
    }
    if sigma < 0.01 { return self }
    return try await SeparableConvolution.apply(self, kernel: GaussianKernel(sigma: sigma))
  }

  /// An unsharp mask: `original + amount × (original − blurred(sigma))`, alpha unchanged.
  ///
  /// - Throws: `CancellationError`; `ImagingError.invalidArgument` for bad sigma or amount.
  package func sharpened(sigma: Double = 1, amount: Double = 1) async throws -> PixelImage {
    guard amount.isFinite, amount >= 0 else {
      throw ImagingError.invalidArgument(operation: "sharpen", reason: "amount \(amount) must be a finite number ≥ 0")
    }
    let blurred = try await blurred(sigma: sigma)
    let gain = Float(amount)
    return try await PixelMap.combine(self, blurred) { original, soft in
      var result = original + gain * (original - soft)
      result[3] = original[3]
      return result
    }
  }
}
