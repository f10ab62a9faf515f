import CPNG

/// PNG through libpng's simplified API, which handles its own setjmp internally.
enum PNGCodec {
  static func decode(_ bytes: [UInt8], name: String, maxPixels: Int) throws(ImagingError) -> PixelImage {
    // libpng keeps the input pointer between begin and finish, so both run in one closure.
    let result = bytes.withUnsafeBytes { raw in decode(raw, name: name, maxPixels: maxPixels) }
    return try result.get()
  }

  private static func decode(
    _ raw: UnsafeRawBufferPointer, name: String, maxPixels: Int
  ) -> Result<PixelImage, ImagingError> {
    var image = png_image()
    image.version = UInt32(PNG_IMAGE_VERSION)
    guard png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count) != 0 else {
      let reason = message(of: &image)
      png_image_free(&image)
      return .failure(.corrupt(name: name, reason: reason))
    }
    let width = Int(image.width)
    let height = Int(image.height)
    guard width > 0, height > 0, width * height <= maxPixels else {
      png_image_free(&image)
      return .failure(.tooManyPixels(name: name, width: width, height: height, limit: maxPixels))
    }
    image.format = runner_png_format_rgba
    // Without this, libpng treats 16-bit data lacking gAMA/sRGB chunks as linear light
    // and brightens it on the way to 8 bits; other decoders read it as sRGB.
    image.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
    let storage = PixelStorage(count: width * height * 4)
    let finished = png_image_finish_read(&image, nil, storage.base, Int32(width * 4), nil)
    guard finished != 0 else {
      let reason = message(of: &image)
      png_image_free(&image)
      return .failure(.corrupt(name: name, reason: reason))
    }
    png_image_free(&image)
    return .success(PixelImage(width: width, height: height, storage: storage))
  }

  /// - Parameter fast: favour speed over size (libpng's `PNG_IMAGE_FLAG_FAST`): for files that
  ///   are only read back, such as cache entries.
  static func encode(_ source: PixelImage, fast: Bool = false) throws(ImagingError) -> [UInt8] {
    let opaque = source.isOpaque
    let rowBytes = opaque ? source.width * 3 : source.width * 4
    var image = png_image()
    image.version = UInt32(PNG_IMAGE_VERSION)
    image.width = UInt32(source.width)
    image.height = UInt32(source.height)
    image.format = opaque ? runner_png_format_rgb : runner_png_format_rgba
    if fast { image.flags |= 0x02 }  // PNG_IMAGE_FLAG_FAST
    // One pass into a buffer of libpng's upper bound (PNG_IMAGE_PNG_SIZE_MAX), rather than a
    // first pass that only measures: that compressed the whole image twice.
    var size = maximumSize(rowBytes: rowBytes, height: source.height)
    var output = [UInt8](repeating: 0, count: size)
    let write = { (raw: UnsafeRawBufferPointer) -> Int32 in
      output.withUnsafeMutableBytes { out in
        png_image_write_to_memory(&image, out.baseAddress, &size, 0, raw.baseAddress, Int32(rowBytes), nil)
      }
    }
    // libpng wants rows without alpha for RGB; RGBA rows are the pixels as they are.
    let rows: [UInt8]? = opaque ? dropAlpha(source) : nil
    let encode = { rows?.withUnsafeBytes(write) ?? source.withUnsafeBytes(write) }
    var written = encode()
    if written == 0, size > output.count {
      // Too small after all: libpng says how much it needs.
      output = [UInt8](repeating: 0, count: size)
      written = encode()
    }
    guard written != 0 else {
      let reason = message(of: &image)
      png_image_free(&image)
      throw .encodeFailed(format: "png", reason: reason)
    }
    png_image_free(&image)
    output.removeSubrange(size...)
    return output
  }

  /// libpng's PNG_IMAGE_PNG_SIZE_MAX for an 8-bit image without a colour map.
  static func maximumSize(rowBytes: Int, height: Int) -> Int {
    let data = rowBytes * height + height
    let compressed = data + (data + 7) >> 3 + (data + 63) >> 6 + 11
    return 8 + 25 + 16 + 44 + 12 + 12 + 12 * (compressed / 8192) + compressed + 1024
  }

  private static func dropAlpha(_ image: PixelImage) -> [UInt8] {
    var rgb = [UInt8](repeating: 0, count: image.pixelCount * 3)
    let src = image.storage.base
    rgb.withUnsafeMutableBufferPointer { dst in
      for index in 0..<image.pixelCount {
        dst[index * 3] = src[index * 4]
        dst[index * 3 + 1] = src[index * 4 + 1]
        dst[index * 3 + 2] = src[index * 4 + 2]
      }
    }
    return rgb
  }

  private static func message(of image: inout png_image) -> String {
    let text = withUnsafeBytes(of: &image.message) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
    return text.isEmpty ? "libpng reported an error" : text.lowercased()
  }
}
