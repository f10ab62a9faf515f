/// Decoding, a first kernel and encoding, overlapped.
extension ImageCodec {
  /// Decodes an image and applies `kernel`, overlapping the two for a JPEG.
  ///
  /// A JPEG without an EXIF rotation is decoded in row bands on a thread of its own while
  /// the kernel's bands follow on the other cores; anything else is decoded, then the
  /// kernel applied. Either way the result equals `kernel.apply(to: decode(bytes, …))`.
  ///
  /// - Throws: `ImagingError` from decoding or the kernel's arguments; `CancellationError`
  ///   when the task is cancelled (the decoder stops too).
  package static func decode(
    _ bytes: [UInt8], name: String, maxPixels: Int = defaultMaxPixels, applying kernel: LeadingKernel
  ) async throws -> PixelImage {
    try await pipeline(bytes, name: name, maxPixels: maxPixels, kernel: kernel, jpegQuality: nil).image
  }

  /// Decodes an image, applies `kernel` and encodes the result as JPEG, all three overlapped
  /// for a JPEG source: the encoder follows the kernel's bands as the kernel follows the decoder.
  ///
  /// - Returns: the image and its JPEG bytes, equal to `encodeJPEG(decode(bytes, applying: kernel), quality:)`.
  /// - Throws: as `decode(_:name:maxPixels:applying:)`, and `.invalidArgument` for a quality
  ///   outside 1...100 before anything is decoded.
  package static func decode(
    _ bytes: [UInt8], name: String, maxPixels: Int = defaultMaxPixels, applying kernel: LeadingKernel,
    encodingJPEG quality: Int
  ) async throws -> (image: PixelImage, jpeg: [UInt8]) {
    let result = try await pipeline(bytes, name: name, maxPixels: maxPixels, kernel: kernel, jpegQuality: quality)
    return (result.image, result.jpeg ?? [])
  }

  /// Reads an image file, decodes it and applies `kernel`, overlapping decoding and the kernel.
  package static func load(
    path: String, maxPixels: Int = defaultMaxPixels, applying kernel: LeadingKernel
  ) async throws -> PixelImage {
    try await decode(FileIO.readAll(path: path), name: path, maxPixels: maxPixels, applying: kernel)
  }

  /// Reads a whole file.
  package static func read(path: String) throws(ImagingError) -> [UInt8] {
    try FileIO.readAll(path: path)
  }

  /// Writes encoded bytes as `save` does: missing directories created, atomically.
  package static func write(_ encoded: [UInt8], to path: String) throws(ImagingError) {
    try FileIO.writeAtomically(encoded, to: path)
  }

  private static func pipeline(
    _ bytes: [UInt8], name: String, maxPixels: Int, kernel: LeadingKernel, jpegQuality: Int?
  ) async throws -> (image: PixelImage, jpeg: [UInt8]?) {
    if let quality = jpegQuality, !(1...100).contains(quality) {
      throw ImagingError.invalidArgument(operation: "jpeg quality", reason: "\(quality) is outside 1...100")
    }
    guard !bytes.isEmpty, ImageFormat.sniff(bytes) == .jpeg, EXIFOrientation.read(fromJPEG: bytes) == .up else {
      let image = try await kernel.apply(to: decode(bytes, name: name, maxPixels: maxPixels))
      return (image, try jpegQuality.map { try encodeJPEG(image, quality: $0) })
    }
    let decoder = try JPEGBandDecoder(bytes, name: name, maxPixels: maxPixels)
    do {
      guard let size = try kernel.outputSize(width: decoder.width, height: decoder.height) else {
        let image = try decoder.image()
        return (image, try jpegQuality.map { try encodeJPEG(image, quality: $0) })
      }
      let output = PixelStorage(uninitializedCount: size.width * size.height * 4)
      let encoder = try jpegQuality.map { quality throws(ImagingError) in
        try JPEGBandEncoder(output, width: size.width, height: size.height, quality: quality)
      }
      // Ending the output rows lets the encoder finish, or give up if the kernel stopped early;
      // either way it has ended before this returns, so no encoding thread outlives the call.
      defer {
        encoder?.completion.progress.end()
        encoder?.waitUntilFinished()
      }
      let image = try await kernel.apply(following: decoder, into: output, completion: encoder?.completion)
      encoder?.completion.progress.end()
      // A kernel that returned normally may still have stopped early for a failed decode.
      if let failure = decoder.progress.waitUntilEnded() { throw failure }
      try Task.checkCancellation()
      return (image, try encoder?.bytes())
    } catch {
      decoder.progress.stop()
      // A failed decode is why the kernel stopped early; report it rather than what followed.
      if let failure = decoder.progress.waitUntilEnded() { throw failure }
      throw error
    }
  }
}
