import Testing

@testable import Imaging

@Suite("EXIF orientation")
struct EXIFOrientationTests {
  /// An APP1 segment holding a one-entry IFD0 with tag 0x0112.
  static func exifSegment(orientation: Int, bigEndian: Bool) -> [UInt8] {
    func u16(_ v: Int) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
    let tiff =
      (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8) + u16(1)
      + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0) + u32(0)
    let payload: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0] + tiff
    let length = payload.count + 2
    return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
  }

  static func withEXIF(_ jpeg: [UInt8], orientation: Int, bigEndian: Bool) -> [UInt8] {
    Array(jpeg[..<2]) + exifSegment(orientation: orientation, bigEndian: bigEndian) + Array(jpeg[2...])
  }

  /// How a camera stores an upright image for each tag value (the inverse of the fix-up).
  static func stored(_ upright: PixelImage, orientation: Int) throws -> PixelImage {
    switch orientation {
    case 2: return upright.flipped(horizontal: true)
    case 3: return try upright.rotated(degrees: 180)
    case 4: return upright.flipped(vertical: true)
    case 5: return try upright.rotated(degrees: 90).flipped(horizontal: true)  // transpose
    case 6: return try upright.rotated(degrees: 270)
    case 7: return try upright.rotated(degrees: 90).flipped(vertical: true)  // transverse
    case 8: return try upright.rotated(degrees: 90)
    default: return upright
    }
  }

  @Test("every orientation decodes upright", arguments: 1...8, [false, true])
  func upright(orientation: Int, bigEndian: Bool) throws {
    let upright = JPEGCodecTests.quadrants()
    let stored = try Self.stored(upright, orientation: orientation)
    let jpeg = try ImageCodec.encodeJPEG(stored, quality: 95)
    let bytes = Self.withEXIF(jpeg, orientation: orientation, bigEndian: bigEndian)
    #expect(EXIFOrientation.read(fromJPEG: bytes).rawValue == orientation)
    let decoded = try ImageCodec.decode(bytes, name: "exif\(orientation).jpg")
    #expect(decoded.width == 64 && decoded.height == 32)
    for (x, y) in [(4, 4), (60, 4), (4, 28), (60, 28)] {
      expectPixel(decoded, x: x, y: y, upright.pixel(x: x, y: y), tolerance: 16)
    }
  }

  @Test func missingOrMalformedEXIFMeansUp() throws {
    let jpeg = try ImageCodec.encodeJPEG(JPEGCodecTests.quadrants(), quality: 80)
    #expect(EXIFOrientation.read(fromJPEG: jpeg) == .up)
    var broken = Self.withEXIF(jpeg, orientation: 6, bigEndian: true)
    broken[12] = 0x00  // spoil the byte-order mark
    #expect(EXIFOrientation.read(fromJPEG: broken) == .up)
    #expect(EXIFOrientation.read(fromJPEG: Self.withEXIF(jpeg, orientation: 9, bigEndian: false)) == .up)
  }
}
