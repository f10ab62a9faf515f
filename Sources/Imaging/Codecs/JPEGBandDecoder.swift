import CJPEG

/// Decodes a JPEG on a thread of its own, a few rows at a time, publishing each band as it
/// is done, so that a kernel on the other cores can work on the top of the image while the
/// rest is still being decoded (libjpeg decodes on one core only).
///
/// The pixels are the same as `JPEGCodec.decode` gives, byte for byte: the same decoder
/// settings, only read in bands.
///
/// - Important: the decoding thread is not part of any Swift executor, so consumers may
///   block on `progress` without starving it. Call `progress.stop()` and
///   `progress.waitUntilEnded()` before giving up on the result.
final class JPEGBandDecoder: @unchecked Sendable {
  // @unchecked: `storage` rows are written only by the decoding thread and read by others
  // only after `progress` has published them.
  let width: Int
  let height: Int
  let storage: PixelStorage
  let progress = RowProgress()
  private let bytes: [UInt8]
  private let name: String
  private let isCMYK: Bool
  private let isAdobe: Bool

  /// Rows decoded between two publications: one or two MCU rows, which libjpeg decodes together.
  static let bandRows = 16

  /// Reads the header, checks the size and starts decoding in the background.
  ///
  /// - Throws: `ImagingError` when the header is unreadable or the image is too large.
  init(_ bytes: [UInt8], name: String, maxPixels: Int) throws(ImagingError) {
    let header = try JPEGCodec.readHeader(bytes, name: name)
    guard header.width > 0, header.height > 0, header.width * header.height <= maxPixels else {
      throw .tooManyPixels(name: name, width: header.width, height: header.height, limit: maxPixels)
    }
    width = header.width
    height = header.height
    isCMYK = header.isCMYK
    isAdobe = header.isAdobe
    storage = PixelStorage(uninitializedCount: header.width * header.height * 4)
    self.bytes = bytes
    self.name = name
    try startThread()
  }

  /// The decoded image; waits for the decoder to finish.
  ///
  /// - Throws: the decoder's error.
  func image() throws(ImagingError) -> PixelImage {
    if let error = progress.waitUntilEnded() { throw error }
    return PixelImage(width: width, height: height, storage: storage)
  }

  private func startThread() throws(ImagingError) {
    try BackgroundThread.start("jpeg decoding") { [self] in progress.end(decodeAll()) }
  }

  /// Runs on the decoding thread. - Returns: the error, if decoding failed.
  private func decodeAll() -> ImagingError? {
    bytes.withUnsafeBufferPointer { data -> ImagingError? in
      guard let decoder = runner_jpeg_decoder_create(data.baseAddress, UInt(data.count), isCMYK ? 1 : 0) else {
        return .corrupt(name: name, reason: "out of memory")
      }
      defer { runner_jpeg_decoder_destroy(decoder) }
      if decoder.pointee.message.0 != 0 { return failure(decoder) }
      var done = 0
      while done < height {
        if progress.shouldStop { return nil }
        guard runner_jpeg_decoder_read(decoder, storage.base, Int32(min(done + Self.bandRows, height))) == 0 else {
          return failure(decoder)
        }
        let next = Int(runner_jpeg_decoder_scanline(decoder))
        if isCMYK {
          JPEGCodec.convertCMYKToRGBA(
            UnsafeMutableBufferPointer(start: storage.base + done * width * 4, count: (next - done) * width * 4),
            inverted: isAdobe)
        }
        done = next
        progress.publish(rows: done)
      }
      return nil
    }
  }

  private func failure(_ decoder: UnsafeMutablePointer<runner_jpeg_decoder>) -> ImagingError {
    let message = withUnsafeBytes(of: decoder.pointee.message) { raw in
      Array(raw.bindMemory(to: CChar.self))
    }
    return .corrupt(name: name, reason: JPEGCodec.text(message))
  }
}
