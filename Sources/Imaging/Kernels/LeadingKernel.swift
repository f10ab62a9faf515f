/// A kernel that can start on the top rows of a JPEG while the rest is still being decoded.
///
/// `ImageCodec.decode(_:name:maxPixels:applying:)` decodes on a thread of its own and runs
/// the kernel's row bands behind it on the other cores, each band waiting for the source
/// rows it needs. The result is the same, byte for byte, as decoding and then applying the
/// kernel.
public enum LeadingKernel: Sendable, Equatable {
  /// `PixelImage.blurred(sigma:)`.
  case blur(sigma: Double)
  /// `PixelImage.resized(width:height:filter:)`, or `resized(scale:filter:)` when `scale` is given.
  case resize(width: Int?, height: Int?, scale: Double?, filter: ResizeFilter)

  /// The kernel applied to a complete image.
  public func apply(to image: PixelImage) async throws -> PixelImage {
    switch self {
    case .blur(let sigma):
      return try await image.blurred(sigma: sigma)
    case .resize(let width, let height, let scale, let filter):
      let size = try ResizeGeometry.targetSize(
        sourceWidth: image.width, sourceHeight: image.height, width: width, height: height, scale: scale)
      return try await image.resized(width: size.width, height: size.height, filter: filter)
    }
  }

  /// The kernel applied behind a decoder; returns nil when it would leave the image as it is.
  func apply(following decoder: JPEGBandDecoder) async throws -> PixelImage? {
    let source = SharedPointer(base: decoder.storage.base)
    let (width, height, progress) = (decoder.width, decoder.height, decoder.progress)
    switch self {
    case .blur(let sigma):
      guard sigma.isFinite, sigma >= 0 else {
        throw ImagingError.invalidArgument(operation: "blur", reason: "sigma \(sigma) must be a finite number ≥ 0")
      }
      if sigma < 0.01 { return nil }
      return try await SeparableConvolution.apply(
        source: source, width: width, height: height, progress: progress, kernel: GaussianKernel(sigma: sigma))
    case .resize(let newWidth, let newHeight, let scale, let filter):
      let size = try ResizeGeometry.targetSize(
        sourceWidth: width, sourceHeight: height, width: newWidth, height: newHeight, scale: scale)
      if size.width == width && size.height == height { return nil }
      return try await PixelImage.resample(
        source: source, width: width, height: height, progress: progress, toWidth: size.width, height: size.height,
        filter: filter)
    }
  }
}

extension ImageCodec {
  /// Decodes an image and applies `kernel`, overlapping the two for a JPEG.
  ///
  /// A JPEG without an EXIF rotation is decoded in row bands on a thread of its own while
  /// the kernel's bands follow on the other cores; anything else is decoded, then the
  /// kernel applied. Either way the result equals `kernel.apply(to: decode(bytes, …))`.
  ///
  /// - Throws: `ImagingError` from decoding or the kernel's arguments; `CancellationError`
  ///   when the task is cancelled (the decoder stops too).
  public static func decode(
    _ bytes: [UInt8], name: String, maxPixels: Int = defaultMaxPixels, applying kernel: LeadingKernel
  ) async throws -> PixelImage {
    guard !bytes.isEmpty, ImageFormat.sniff(bytes) == .jpeg, EXIFOrientation.read(fromJPEG: bytes) == .up else {
      return try await kernel.apply(to: decode(bytes, name: name, maxPixels: maxPixels))
    }
    let decoder = try JPEGBandDecoder(bytes, name: name, maxPixels: maxPixels)
    let result: PixelImage?
    do {
      result = try await kernel.apply(following: decoder)
    } catch {
      decoder.progress.stop()
      // A failed decode is why the kernel stopped early; report it rather than what followed.
      if let failure = decoder.progress.waitUntilEnded() { throw failure }
      throw error
    }
    // A kernel that returned normally may still have stopped early for a failed decode.
    if let failure = decoder.progress.waitUntilEnded() { throw failure }
    try Task.checkCancellation()
    return try result ?? decoder.image()
  }

  /// Reads an image file, decodes it and applies `kernel`, overlapping decoding and the kernel.
  public static func load(
    path: String, maxPixels: Int = defaultMaxPixels, applying kernel: LeadingKernel
  ) async throws -> PixelImage {
    try await decode(FileIO.readAll(path: path), name: path, maxPixels: maxPixels, applying: kernel)
  }
}
