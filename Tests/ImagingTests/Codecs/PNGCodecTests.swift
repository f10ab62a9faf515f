import Testing

@testable import Imaging

@Suite("PNG codec")
struct PNGCodecTests {
  @Test("colour kinds decode to the exact pattern", arguments: ["rgba8.png", "rgba16.png", "palette-trns.png"])
  func colourWithAlpha(name: String) throws {
    let image = try ImageCodec.decode(Fixtures.bytes(name), name: name)
    #expect(image.width == 5 && image.height == 4)
    for y in 0..<4 {
      for x in 0..<5 { expectPixel(image, x: x, y: y, Fixtures.pattern(x: x, y: y)) }
    }
  }

  @Test("opaque colour kinds decode with alpha 255", arguments: ["rgb8.png", "rgb16.png"])
  func opaqueColour(name: String) throws {
    let image = try ImageCodec.decode(Fixtures.bytes(name), name: name)
    for y in 0..<4 {
      for x in 0..<5 {
        let p = Fixtures.pattern(x: x, y: y)
        expectPixel(image, x: x, y: y, (p.r, p.g, p.b, 255))
      }
    }
  }

  @Test("gray and gray+alpha expand to RGBA", arguments: [false, true])
  func gray(withAlpha: Bool) throws {
    let name = withAlpha ? "gray-alpha8.png" : "gray8.png"
    let image = try ImageCodec.decode(Fixtures.bytes(name), name: name)
    for y in 0..<4 {
      for x in 0..<5 {
        let g = UInt8(30 * x + 40 * y)
        expectPixel(image, x: x, y: y, (g, g, g, withAlpha ? Fixtures.pattern(x: x, y: y).a : 255))
      }
    }
  }

  @Test func interlacedAdam7() throws {
    let image = try ImageCodec.decode(Fixtures.bytes("interlaced.png"), name: "interlaced.png")
    #expect(image.width == 9 && image.height == 9)
    for y in 0..<9 {
      for x in 0..<9 { expectPixel(image, x: x, y: y, (UInt8(25 * x), UInt8(25 * y), 7, 255)) }
    }
  }

  @Test("round trip is lossless", arguments: [true, false])
  func roundTrip(opaque: Bool) throws {
    var image = gradientImage(width: 37, height: 23)
    if !opaque { image.setPixel(x: 3, y: 4, (1, 2, 3, 4)) }
    let bytes = try ImageCodec.encodePNG(image)
    #expect(ImageFormat.sniff(bytes) == .png)
    let decoded = try ImageCodec.decode(bytes, name: "memory")
    #expect(decoded == image)
  }

  /// Noise does not compress: the worst case for the output buffer, which is sized from
  /// libpng's upper bound so the image is compressed only once. Fast mode round-trips too.
  @Test("noise round trips", arguments: [(true, false), (false, false), (true, true), (false, true)])
  func noiseRoundTrips(opaque: Bool, fast: Bool) throws {
    var generator = SystemRandomNumberGenerator()
    var pixels = (0..<(301 * 199 * 4)).map { _ in UInt8.random(in: 0...255, using: &generator) }
    if opaque { for index in stride(from: 3, to: pixels.count, by: 4) { pixels[index] = 255 } }
    let image = PixelImage(width: 301, height: 199, pixels: pixels)
    let bytes = try ImageCodec.encodePNG(image, fast: fast)
    #expect(try ImageCodec.decode(bytes, name: "memory") == image)
  }

  @Test func decompressionBombIsRejectedFromTheHeader() throws {
    #expect(throws: ImagingError.tooManyPixels(name: "bomb.png", width: 100_000, height: 100_000, limit: 100_000_000)) {
      try ImageCodec.decode(Fixtures.bytes("bomb.png"), name: "bomb.png")
    }
  }

  @Test func maxPixelsIsInclusive() throws {
    let bytes = try Fixtures.bytes("rgb8.png")
    _ = try ImageCodec.decode(bytes, name: "rgb8.png", maxPixels: 20)
    #expect(throws: ImagingError.tooManyPixels(name: "rgb8.png", width: 5, height: 4, limit: 19)) {
      try ImageCodec.decode(bytes, name: "rgb8.png", maxPixels: 19)
    }
  }

  @Test("corrupt and truncated files throw .corrupt", arguments: ["corrupt.png", "truncated.png"])
  func corrupt(name: String) throws {
    let bytes = try Fixtures.bytes(name)
    let error = #expect(throws: ImagingError.self) { try ImageCodec.decode(bytes, name: name) }
    guard case .corrupt(let reportedName, let reason)? = error else {
      Issue.record("expected .corrupt, got \(String(describing: error))")
      return
    }
    #expect(reportedName == name)
    #expect(!reason.isEmpty)
    #expect(error?.description.hasPrefix("'\(name)' is corrupt or truncated: ") == true)
  }

  @Test func everyTruncationFailsCleanly() throws {
    let bytes = try Fixtures.bytes("rgba8.png")
    let iend = bytes.count - 12  // cutting into IEND loses no pixels, so libpng accepts it
    for length in 1..<iend {
      #expect(throws: ImagingError.self) { try ImageCodec.decode(Array(bytes[..<length]), name: "cut.png") }
    }
    for length in iend..<bytes.count {
      let image = try ImageCodec.decode(Array(bytes[..<length]), name: "cut.png")
      #expect(image.pixel(x: 4, y: 3) == Fixtures.pattern(x: 4, y: 3))
    }
  }
}
