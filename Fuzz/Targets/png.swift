import Imaging

/// Decodes arbitrary bytes behind a PNG signature, so every input reaches libpng, and reads
/// every decoded pixel so a short buffer shows up under AddressSanitizer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
  var bytes = Array(UnsafeBufferPointer(start: data, count: size))
  if !bytes.starts(with: signature) { bytes = signature + bytes }
  if let image = try? ImageCodec.decode(bytes, name: "fuzz.png", maxPixels: 1 << 22) {
    let pixels = image.pixels
    precondition(pixels.count == image.width * image.height * 4, "one RGBA quadruple per pixel")
    var sum = 0
    for byte in pixels { sum &+= Int(byte) }
    _ = sum
  }
  return 0
}
