/// The EXIF orientation tag (0x0112) of a JPEG, and how to undo it.
package enum EXIFOrientation: Int, Sendable, CaseIterable {
  case up = 1
  case upMirrored = 2
  case down = 3
  case downMirrored = 4
  case leftMirrored = 5
  case right = 6
  case rightMirrored = 7
  case left = 8

  /// Reads the orientation from the first APP1 "Exif" segment; `.up` when absent or malformed.
  package static func read(fromJPEG bytes: [UInt8]) -> EXIFOrientation {
    guard let (start, end) = exifSegment(in: bytes) else { return .up }
    return parseTIFF(bytes, start: start, end: end) ?? .up
  }

  /// Turns an image stored with this orientation upright.
  package func apply(to image: PixelImage) -> PixelImage {
    switch self {
    case .up: return image
    case .upMirrored: return image.flipped(horizontal: true)
    case .down: return image.rotated(quarterTurns: 2)
    case .downMirrored: return image.flipped(vertical: true)
    case .leftMirrored: return image.rotated(quarterTurns: 1).flipped(horizontal: true)
    case .right: return image.rotated(quarterTurns: 1)
    case .rightMirrored: return image.rotated(quarterTurns: 1).flipped(vertical: true)
    case .left: return image.rotated(quarterTurns: 3)
    }
  }

  /// The TIFF payload range of the APP1 Exif segment, scanning markers up to start of scan.
  private static func exifSegment(in bytes: [UInt8]) -> (Int, Int)? {
    var offset = 2
    while offset + 4 <= bytes.count {
      guard bytes[offset] == 0xFF else { return nil }
      let marker = bytes[offset + 1]
      if marker == 0xFF {
        offset += 1
        continue
      }
      if marker == 0xDA || marker == 0xD9 { return nil }
      let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
      let payload = offset + 4
      let end = offset + 2 + length
      guard length >= 2, end <= bytes.count else { return nil }
      if marker == 0xE1, end - payload >= 14,
        bytes[payload..<payload + 6].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0])
      {
        return (payload + 6, end)
      }
      offset = end
    }
    return nil
  }

  private static func parseTIFF(_ bytes: [UInt8], start: Int, end: Int) -> EXIFOrientation? {
    let littleEndian: Bool
    switch (bytes[start], bytes[start + 1]) {
    case (0x49, 0x49): littleEndian = true
    case (0x4D, 0x4D): littleEndian = false
    default: return nil
    }
    func u16(_ at: Int) -> Int? {
      guard at >= start, at + 2 <= end else { return nil }
      let a = Int(bytes[at])
      let b = Int(bytes[at + 1])
      return littleEndian ? a | b << 8 : a << 8 | b
    }
    func u32(_ at: Int) -> Int? {
      guard let low = u16(littleEndian ? at : at + 2), let high = u16(littleEndian ? at + 2 : at) else { return nil }
      return high << 16 | low
    }
    guard u16(start + 2) == 42, let ifdOffset = u32(start + 4), let count = u16(start + ifdOffset) else { return nil }
    for entry in 0..<count {
      let at = start + ifdOffset + 2 + entry * 12
      guard let tag = u16(at) else { return nil }
      if tag == 0x0112 {
        guard u16(at + 2) == 3, let value = u16(at + 8) else { return nil }
        return EXIFOrientation(rawValue: value)
      }
    }
    return nil
  }
}
