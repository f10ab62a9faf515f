import Imaging

/// Decodes arbitrary bytes behind a JPEG start-of-image marker, so every input reaches
/// libjpeg-turbo (and the EXIF orientation reader), and reads every decoded pixel.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let marker: [UInt8] = [0xFF, 0xD8, 0xFF]
  var bytes = Array(UnsafeBufferPointer(start: data, count: size))
  if !bytes.starts(with: marker) { bytes = marker + bytes }
  if let image = try? ImageCodec.decode(bytes, name: "fuzz.jpg", maxPixels: 1 << 22) {
    let pixels = image.pixels
    precondition(pixels.count == image.width * image.height * 4, "one RGBA quadruple per pixel")
    var sum = 0
    for byte in pixels { sum &+= Int(byte) }
    _ = sum
  }
  return 0
}
