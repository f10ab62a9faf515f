/// Reads and writes PNG and JPEG images.
package enum ImageCodec {
  /// The default upper bound on decoded pixels.
  package static let defaultMaxPixels = 100_000_000

  /// The default JPEG quality.
  package static let defaultJPEGQuality = 85

  /// Decodes PNG or JPEG bytes; the format is sniffed from the magic bytes.
  ///
  /// The header is read first and the pixel count checked against `maxPixels` before
  /// any pixel is decoded, so a small file that claims huge dimensions fails fast.
  /// JPEG EXIF orientation is applied, so the result is upright.
  ///
  /// - Parameters:
  ///   - bytes: the encoded file.
  ///   - name: the file name or URL, used in error messages.
  ///   - maxPixels: the largest `width * height` accepted.
  /// - Returns: the decoded RGBA image.
  /// - Throws: `ImagingError` for empty, unknown, corrupt, truncated or oversized input.
  package static func decode(
    _ bytes: [UInt8], name: String, maxPixels: Int = defaultMaxPixels
  ) throws(ImagingError) -> PixelImage {
    if bytes.isEmpty { throw .emptyInput(name: name) }
    switch ImageFormat.sniff(bytes) {
    case .png:
      return try PNGCodec.decode(bytes, name: name, maxPixels: maxPixels)
    case .jpeg:
      let image = try JPEGCodec.decode(bytes, name: name, maxPixels: maxPixels)
      return EXIFOrientation.read(fromJPEG: bytes).apply(to: image)
    case nil:
      throw .unknownFormat(name: name, firstBytes: ImageFormat.describeLeadingBytes(bytes))
    }
  }

  /// Encodes an image as PNG: RGB when fully opaque, otherwise RGBA, 8 bits per channel.
  ///
  /// - Parameter fast: favour speed over size, for files only read back (cache entries).
  package static func encodePNG(_ image: PixelImage, fast: Bool = false) throws(ImagingError) -> [UInt8] {
    try PNGCodec.encode(image, fast: fast)
  }

  /// Encodes an image as baseline JPEG (alpha is dropped).
  ///
  /// - Parameter quality: 1...100.
  package static func encodeJPEG(_ image: PixelImage, quality: Int = defaultJPEGQuality) throws(ImagingError) -> [UInt8]
  {
    guard (1...100).contains(quality) else {
      throw .invalidArgument(operation: "jpeg quality", reason: "\(quality) is outside 1...100")
    }
    return try JPEGCodec.encode(image, quality: quality)
  }

  /// Encodes in the given format.
  package static func encode(
    _ image: PixelImage, as format: ImageFormat, quality: Int = defaultJPEGQuality
  ) throws(ImagingError) -> [UInt8] {
    switch format {
    case .png: return try encodePNG(image)
    case .jpeg: return try encodeJPEG(image, quality: quality)
    }
  }

  /// Reads and decodes an image file.
  package static func load(path: String, maxPixels: Int = defaultMaxPixels) throws(ImagingError) -> PixelImage {
    let bytes = try FileIO.readAll(path: path)
    return try decode(bytes, name: path, maxPixels: maxPixels)
  }

  /// Encodes and writes an image; the format comes from the extension (.png, .jpg, .jpeg).
  ///
  /// Missing directories are created. The write is atomic: the bytes go to a temporary
  /// file in the same directory, which is flushed with fsync and renamed over `path`;
  /// on failure the temporary file is removed.
  package static func save(
    _ image: PixelImage, to path: String, quality: Int = defaultJPEGQuality
  ) throws(ImagingError) {
    let format = try ImageFormat.forSaving(path: path)
    let bytes = try encode(image, as: format, quality: quality)
    try FileIO.writeAtomically(bytes, to: path)
  }
}

/// Free-function spellings of the codec entry points.
package func decode(_ bytes: [UInt8], name: String, maxPixels: Int = ImageCodec.defaultMaxPixels)
  throws(ImagingError) -> PixelImage
{
  try ImageCodec.decode(bytes, name: name, maxPixels: maxPixels)
}

package func encodePNG(_ image: PixelImage) throws(ImagingError) -> [UInt8] {
  try ImageCodec.encodePNG(image)
}

package func encodeJPEG(_ image: PixelImage, quality: Int = ImageCodec.defaultJPEGQuality) throws(ImagingError)
  -> [UInt8]
{
  try ImageCodec.encodeJPEG(image, quality: quality)
}

package func load(path: String, maxPixels: Int = ImageCodec.defaultMaxPixels) throws(ImagingError) -> PixelImage {
  try ImageCodec.load(path: path, maxPixels: maxPixels)
}

package func save(_ image: PixelImage, to path: String, quality: Int = ImageCodec.defaultJPEGQuality)
  throws(ImagingError)
{
  try ImageCodec.save(image, to: path, quality: quality)
}
