/// A kernel that can start on the top rows of a JPEG while the rest is still being decoded.
///
/// `ImageCodec.decode(_:name:maxPixels:applying:)` decodes on a thread of its own and runs
/// the kernel's row bands behind it on the other cores, each band waiting for the source
/// rows it needs. The result is the same, byte for byte, as decoding and then applying the
/// kernel.
package enum LeadingKernel: Sendable, Equatable {
  /// `PixelImage.blurred(sigma:)`.
  case blur(sigma: Double)
  /// `PixelImage.resized(width:height:filter:)`, or `resized(scale:filter:)` when `scale` is given.
  case resize(width: Int?, height: Int?, scale: Double?, filter: ResizeFilter)

  /// The kernel applied to a complete image.
  package func apply(to image: PixelImage) async throws -> PixelImage {
    switch self {
    case .blur(let sigma):
      return try await image.blurred(sigma: sigma)
    case .resize(let width, let height, let scale, let filter):
      let size = try ResizeGeometry.targetSize(
        sourceWidth: image.width, sourceHeight: image.height, width: width, height: height, scale: scale)
      return try await image.resized(width: size.width, height: size.height, filter: filter)
    }
  }

  /// The size of the result for a `width`×`height` source, or nil when the kernel would
  /// leave the image as it is.
  ///
  /// - Throws: `ImagingError.invalidArgument` for bad arguments, as `apply(to:)` does.
  func outputSize(width: Int, height: Int) throws(ImagingError) -> (width: Int, height: Int)? {
    switch self {
    case .blur(let sigma):
      guard sigma.isFinite, sigma >= 0 else {
        throw .invalidArgument(operation: "blur", reason: "sigma \(sigma) must be a finite number ≥ 0")
      }
      return sigma < 0.01 ? nil : (width, height)
    case .resize(let newWidth, let newHeight, let scale, _):
      let size = try ResizeGeometry.targetSize(
        sourceWidth: width, sourceHeight: height, width: newWidth, height: newHeight, scale: scale)
      return size == (width, height) ? nil : size
    }
  }

  /// The kernel applied behind a decoder, into `output` (sized by `outputSize`), reporting
  /// finished rows to `completion`.
  func apply(
    following decoder: JPEGBandDecoder, into output: PixelStorage, completion: BandCompletion?
  ) async throws -> PixelImage {
    let source = SharedPointer(base: decoder.storage.base)
    let (width, height, progress) = (decoder.width, decoder.height, decoder.progress)
    switch self {
    case .blur(let sigma):
      return try await SeparableConvolution.apply(
        source: source, width: width, height: height, progress: progress, kernel: GaussianKernel(sigma: sigma),
        output: output, completion: completion)
    case .resize(_, _, _, let filter):
      let size = try outputSize(width: width, height: height) ?? (width, height)
      return try await PixelImage.resample(
        source: source, width: width, height: height, progress: progress, toWidth: size.width, height: size.height,
        filter: filter, output: output, completion: completion)
    }
  }
}
