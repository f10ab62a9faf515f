import CJPEG

/// JPEG through libjpeg-turbo; the setjmp error handling lives in the CJPEG shim.
enum JPEGCodec {
  /// How the pixels handed to the encoder are laid out (matches the shim's `mode`).
  enum InputLayout: Int32 {
    case rgba = 0
    case gray = 1
    case cmyk = 2
  }

  struct Header {
    var width: Int
    var height: Int
    var isCMYK: Bool
    var isAdobe: Bool
  }

  static func readHeader(_ bytes: [UInt8], name: String) throws(ImagingError) -> Header {
    var header = runner_jpeg_header()
    var message = [CChar](repeating: 0, count: Int(RUNNER_JPEG_MESSAGE_LENGTH))
    let status = bytes.withUnsafeBufferPointer { data in
      runner_jpeg_read_header(data.baseAddress, UInt(data.count), &header, &message)
    }
    guard status == 0 else { throw .corrupt(name: name, reason: text(message)) }
    let space = J_COLOR_SPACE(rawValue: UInt32(header.colorSpace))
    return Header(
      width: Int(header.width), height: Int(header.height),
      isCMYK: space == JCS_CMYK || space == JCS_YCCK, isAdobe: header.adobe != 0)
  }

  static func decode(_ bytes: [UInt8], name: String, maxPixels: Int) throws(ImagingError) -> PixelImage {
    let header = try readHeader(bytes, name: name)
    guard header.width > 0, header.height > 0, header.width * header.height <= maxPixels else {
      throw .tooManyPixels(name: name, width: header.width, height: header.height, limit: maxPixels)
    }
    let storage = PixelStorage(uninitializedCount: header.width * header.height * 4)
    var message = [CChar](repeating: 0, count: Int(RUNNER_JPEG_MESSAGE_LENGTH))
    let status = bytes.withUnsafeBufferPointer { data in
      runner_jpeg_decode(data.baseAddress, UInt(data.count), header.isCMYK ? 1 : 0, storage.base, &message)
    }
    guard status == 0 else { throw .corrupt(name: name, reason: text(message)) }
    if header.isCMYK {
      convertCMYKToRGBA(UnsafeMutableBufferPointer(start: storage.base, count: storage.count), inverted: header.isAdobe)
    }
    return PixelImage(width: header.width, height: header.height, storage: storage)
  }

  static func encode(_ image: PixelImage, quality: Int) throws(ImagingError) -> [UInt8] {
    try encode(
      raw: UnsafeBufferPointer(start: image.storage.base, count: image.storage.count), width: image.width,
      height: image.height, layout: .rgba, quality: quality, progressive: false)
  }

  /// Encodes raw samples; also used by tests to produce gray, CMYK and progressive files.
  static func encode(
    raw: UnsafeBufferPointer<UInt8>, width: Int, height: Int, layout: InputLayout, quality: Int, progressive: Bool
  ) throws(ImagingError) -> [UInt8] {
    var output: UnsafeMutablePointer<UInt8>? = nil
    var size: UInt = 0
    var message = [CChar](repeating: 0, count: Int(RUNNER_JPEG_MESSAGE_LENGTH))
    let status = runner_jpeg_encode(
      raw.baseAddress, Int32(width), Int32(height), layout.rawValue, Int32(quality), progressive ? 1 : 0,
      &output, &size, &message)
    defer { free(output) }
    guard status == 0, let output else { throw .encodeFailed(format: "jpeg", reason: text(message)) }
    return Array(UnsafeBufferPointer(start: output, count: Int(size)))
  }

  /// CMYK to RGB by the naive complement formula; Adobe files store the inks inverted.
  static func convertCMYKToRGBA(_ buffer: UnsafeMutableBufferPointer<UInt8>, inverted: Bool) {
    var index = 0
    while index < buffer.count {
      var c = Int(buffer[index])
      var m = Int(buffer[index + 1])
      var y = Int(buffer[index + 2])
      var k = Int(buffer[index + 3])
      if !inverted {
        c = 255 - c
        m = 255 - m
        y = 255 - y
        k = 255 - k
      }
      buffer[index] = UInt8((c * k + 127) / 255)
      buffer[index + 1] = UInt8((m * k + 127) / 255)
      buffer[index + 2] = UInt8((y * k + 127) / 255)
      buffer[index + 3] = 255
      index += 4
    }
  }

  static func text(_ message: [CChar]) -> String {
    let bytes = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    let text = String(decoding: bytes, as: UTF8.self)
    return text.isEmpty ? "libjpeg reported an error" : text.lowercased()
  }
}
