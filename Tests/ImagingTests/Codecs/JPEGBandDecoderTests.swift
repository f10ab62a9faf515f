import Testing

@testable import Imaging

@Suite("JPEG band decoder")
struct JPEGBandDecoderTests {
  /// A JPEG with detail everywhere, so that every MCU row decodes to something different.
  static func detailedJPEG(width: Int, height: Int, quality: Int = 90) throws -> [UInt8] {
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    for y in 0..<height {
      for x in 0..<width {
        let index = (y * width + x) * 4
        pixels[index] = UInt8(truncatingIfNeeded: x * 7 + (x / 13) * 31 + y)
        pixels[index + 1] = UInt8(truncatingIfNeeded: y * 3 + x / 2)
        pixels[index + 2] = UInt8(truncatingIfNeeded: (x ^ y) * 5)
      }
    }
    return try ImageCodec.encodeJPEG(PixelImage(width: width, height: height, pixels: pixels), quality: quality)
  }

  @Test("banded decode gives the same bytes as the whole-image decode", arguments: [(64, 32), (301, 257), (17, 1000)])
  func bandedEqualsWhole(size: (width: Int, height: Int)) throws {
    let bytes = try Self.detailedJPEG(width: size.width, height: size.height)
    let whole = try ImageCodec.decode(bytes, name: "whole.jpg")
    let banded = try JPEGBandDecoder(bytes, name: "banded.jpg", maxPixels: ImageCodec.defaultMaxPixels).image()
    #expect(banded == whole)
  }

  @Test func bandedCMYKEqualsWhole() throws {
    let (width, height) = (40, 70)
    let samples = (0..<(width * height * 4)).map { UInt8(truncatingIfNeeded: $0 * 13 + $0 / 160) }
    let bytes = try samples.withUnsafeBufferPointer { raw in
      try JPEGCodec.encode(raw: raw, width: width, height: height, layout: .cmyk, quality: 90, progressive: false)
    }
    let banded = try JPEGBandDecoder(bytes, name: "cmyk.jpg", maxPixels: 1 << 20).image()
    #expect(banded == (try ImageCodec.decode(bytes, name: "cmyk.jpg")))
  }

  @Test func progressiveBandedEqualsWhole() throws {
    let image = try ImageCodec.decode(Self.detailedJPEG(width: 120, height: 90), name: "source.jpg")
    let bytes = try JPEGCodec.encode(
      raw: UnsafeBufferPointer(start: image.storage.base, count: image.storage.count), width: 120, height: 90,
      layout: .rgba, quality: 80, progressive: true)
    let banded = try JPEGBandDecoder(bytes, name: "progressive.jpg", maxPixels: 1 << 20).image()
    #expect(banded == (try ImageCodec.decode(bytes, name: "progressive.jpg")))
  }

  @Test func truncatedFileFailsAsCorrupt() throws {
    let bytes = try Self.detailedJPEG(width: 200, height: 300)
    for length in [30, bytes.count / 2, bytes.count - 2] {
      let error = #expect(throws: ImagingError.self) {
        try JPEGBandDecoder(Array(bytes[..<length]), name: "cut.jpg", maxPixels: 1 << 20).image()
      }
      guard case .corrupt(let name, _)? = error else {
        Issue.record("length \(length): expected .corrupt, got \(String(describing: error))")
        continue
      }
      #expect(name == "cut.jpg")
    }
  }

  /// A header that promises more rows and columns than the data holds (issue 18): libjpeg pads
  /// with gray and calls it a warning; runner fails it as corrupt, whole or banded.
  @Test func aHeaderLargerThanItsDataFailsAsCorrupt() throws {
    var bytes = try Self.detailedJPEG(width: 80, height: 60)
    guard let sof = (0..<(bytes.count - 9)).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }) else {
      Issue.record("no SOF0 marker")
      return
    }
    // FF C0, length (2), precision (1), then height and width, big-endian: 900 x 800.
    bytes[sof + 5] = 0x03
    bytes[sof + 6] = 0x84
    bytes[sof + 7] = 0x03
    bytes[sof + 8] = 0x20
    let whole = #expect(throws: ImagingError.self) { try ImageCodec.decode(bytes, name: "big.jpg") }
    let banded = #expect(throws: ImagingError.self) {
      try JPEGBandDecoder(bytes, name: "big.jpg", maxPixels: ImageCodec.defaultMaxPixels).image()
    }
    for error in [whole, banded] {
      guard case .corrupt(let name, _)? = error else {
        Issue.record("expected .corrupt, got \(String(describing: error))")
        continue
      }
      #expect(name == "big.jpg")
    }
  }

  @Test func oversizedImageIsRejectedBeforeDecoding() throws {
    let bytes = try Self.detailedJPEG(width: 100, height: 100)
    #expect(throws: ImagingError.tooManyPixels(name: "big.jpg", width: 100, height: 100, limit: 9999)) {
      try JPEGBandDecoder(bytes, name: "big.jpg", maxPixels: 9999)
    }
  }
}
