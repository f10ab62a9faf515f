import Testing

@testable import Imaging

@Suite("JPEG codec")
struct JPEGCodecTests {
  /// 64x32 quadrants, aligned to 16-pixel MCUs so that JPEG keeps colours close.
  static func quadrants(width: Int = 64, height: Int = 32) -> PixelImage {
    var image = PixelImage(width: width, height: height, fill: (255, 0, 0, 255))
    for y in 0..<height {
      for x in 0..<width {
        switch (x < width / 2, y < height / 2) {
        case (true, true): image.setPixel(x: x, y: y, (220, 30, 30, 255))
        case (false, true): image.setPixel(x: x, y: y, (30, 200, 40, 255))
        case (true, false): image.setPixel(x: x, y: y, (30, 40, 210, 255))
        case (false, false): image.setPixel(x: x, y: y, (240, 240, 240, 255))
        }
      }
    }
    return image
  }

  @Test("baseline round trip stays close", arguments: [50, 85, 100])
  func roundTrip(quality: Int) throws {
    let image = Self.quadrants()
    let bytes = try ImageCodec.encodeJPEG(image, quality: quality)
    #expect(ImageFormat.sniff(bytes) == .jpeg)
    let decoded = try ImageCodec.decode(bytes, name: "q\(quality).jpg")
    #expect(decoded.width == 64 && decoded.height == 32)
    expectPixel(decoded, x: 8, y: 4, (220, 30, 30, 255), tolerance: 12)
    expectPixel(decoded, x: 56, y: 28, (240, 240, 240, 255), tolerance: 12)
  }

  @Test func higherQualityIsBigger() throws {
    let image = gradientImage(width: 64, height: 64)
    #expect(try ImageCodec.encodeJPEG(image, quality: 95).count > ImageCodec.encodeJPEG(image, quality: 30).count)
  }

  @Test func qualityOutOfRange() {
    #expect(throws: ImagingError.self) { try ImageCodec.encodeJPEG(Self.quadrants(), quality: 0) }
  }

  @Test func progressive() throws {
    let image = Self.quadrants()
    let bytes = try JPEGCodec.encode(
      raw: UnsafeBufferPointer(start: image.storage.base, count: image.storage.count), width: 64, height: 32,
      layout: .rgba, quality: 90, progressive: true)
    #expect(bytes.contains(0xC2) && !bytes.isEmpty)  // SOF2 marker present
    let decoded = try ImageCodec.decode(bytes, name: "progressive.jpg")
    #expect(meanDifference(decoded, image) <= 4)
    expectPixel(decoded, x: 40, y: 4, (30, 200, 40, 255), tolerance: 12)
  }

  @Test func grayscale() throws {
    let samples = (0..<(32 * 16)).map { UInt8(($0 % 32) * 8) }
    let bytes = try samples.withUnsafeBufferPointer { raw in
      try JPEGCodec.encode(raw: raw, width: 32, height: 16, layout: .gray, quality: 95, progressive: false)
    }
    let decoded = try ImageCodec.decode(bytes, name: "gray.jpg")
    let p = decoded.pixel(x: 16, y: 8)
    #expect(p.r == p.g && p.g == p.b && p.a == 255)
    #expect(abs(Int(p.r) - 128) <= 6)
  }

  @Test func adobeCMYK() throws {
    // Photoshop writes inverted CMYK with an Adobe marker, as libjpeg does for JCS_CMYK.
    // Ink: c=0, m=255, y=255, k=0 (red); stored inverted.
    let samples = [UInt8](repeating: 0, count: 16 * 16 * 4).enumerated().map { index, _ in
      [255, 0, 0, 255][index % 4] as UInt8
    }
    let bytes = try samples.withUnsafeBufferPointer { raw in
      try JPEGCodec.encode(raw: raw, width: 16, height: 16, layout: .cmyk, quality: 95, progressive: false)
    }
    let decoded = try ImageCodec.decode(bytes, name: "cmyk.jpg")
    expectPixel(decoded, x: 8, y: 8, (255, 0, 0, 255), tolerance: 6)
  }

  @Test func truncatedFileIsAnErrorNotGrayPadding() throws {
    let bytes = try ImageCodec.encodeJPEG(gradientImage(width: 64, height: 64), quality: 90)
    for length in [3, 20, bytes.count / 2, bytes.count - 2] {
      let error = #expect(throws: ImagingError.self) { try ImageCodec.decode(Array(bytes[..<length]), name: "cut.jpg") }
      guard case .corrupt(let name, _)? = error else {
        Issue.record("length \(length): expected .corrupt, got \(String(describing: error))")
        continue
      }
      #expect(name == "cut.jpg")
    }
  }

  @Test func garbageAfterTheMagicIsCorrupt() {
    let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x03, 0x00] + [UInt8](repeating: 0x42, count: 100)
    #expect(throws: ImagingError.self) { try ImageCodec.decode(bytes, name: "garbage.jpg") }
  }

  @Test func decompressionBombIsRejectedFromTheHeader() throws {
    var bytes = try ImageCodec.encodeJPEG(Self.quadrants(), quality: 80)
    // Patch the SOF0 frame size to 60000 x 60000.
    let sof = try #require(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
    bytes[sof + 5] = 0xEA
    bytes[sof + 6] = 0x60
    bytes[sof + 7] = 0xEA
    bytes[sof + 8] = 0x60
    #expect(throws: ImagingError.tooManyPixels(name: "bomb.jpg", width: 60000, height: 60000, limit: 100_000_000)) {
      try ImageCodec.decode(bytes, name: "bomb.jpg")
    }
  }
}
