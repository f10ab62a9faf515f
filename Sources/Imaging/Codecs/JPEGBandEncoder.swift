import CJPEG

/// Encodes a kernel's output as JPEG on a thread of its own, following the kernel's bands
/// down the image (`completion`), so that encoding overlaps the blur or resize.
///
/// The bytes are the same as `JPEGCodec.encode` gives for the finished image.
final class JPEGBandEncoder: @unchecked Sendable {
  // @unchecked: `encoded` is written by the encoding thread before `finished` ends, and
  // read only after it has.
  let completion = BandCompletion()
  private let finished = RowProgress()
  private let storage: PixelStorage
  private let width: Int
  private let height: Int
  private let quality: Int
  private var encoded: [UInt8] = []

  /// Starts encoding `storage` (RGBA, `width`×`height`) as rows are marked complete.
  init(_ storage: PixelStorage, width: Int, height: Int, quality: Int) throws(ImagingError) {
    self.storage = storage
    self.width = width
    self.height = height
    self.quality = quality
    try BackgroundThread.start("jpeg encoding") { [self] in finished.end(encodeAll()) }
  }

  /// The encoded file; waits for the encoder. Call after ending `completion.progress`.
  ///
  /// - Throws: the encoder's error, or `.encodeFailed` when the kernel stopped early.
  func bytes() throws(ImagingError) -> [UInt8] {
    if let error = finished.waitUntilEnded() { throw error }
    return encoded
  }

  /// Waits for the encoding thread to end, however it ends.
  func waitUntilFinished() {
    _ = finished.waitUntilEnded()
  }

  /// Runs on the encoding thread. - Returns: the error, if encoding failed.
  private func encodeAll() -> ImagingError? {
    guard let encoder = runner_jpeg_encoder_create(Int32(width), Int32(height), Int32(quality)) else {
      return .encodeFailed(format: "jpeg", reason: "out of memory")
    }
    defer { runner_jpeg_encoder_destroy(encoder) }
    if encoder.pointee.message.0 != 0 { return failure(encoder) }
    var done = 0
    while done < height {
      let limit = min(done + 16, height)
      guard completion.progress.waitForRow(limit - 1) else {
        return .encodeFailed(format: "jpeg", reason: "the image was not finished")
      }
      guard runner_jpeg_encoder_write(encoder, storage.base, Int32(limit)) == 0 else { return failure(encoder) }
      done = Int(runner_jpeg_encoder_scanline(encoder))
    }
    encoded = Array(UnsafeBufferPointer(start: encoder.pointee.dest.buffer, count: encoder.pointee.dest.used))
    return nil
  }

  private func failure(_ encoder: UnsafeMutablePointer<runner_jpeg_encoder>) -> ImagingError {
    let message = withUnsafeBytes(of: encoder.pointee.message) { Array($0.bindMemory(to: CChar.self)) }
    return .encodeFailed(format: "jpeg", reason: JPEGCodec.text(message))
  }
}
