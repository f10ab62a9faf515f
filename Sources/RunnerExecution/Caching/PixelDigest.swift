import Imaging
import RunnerCache

extension Fingerprint {
  /// The digest of an image's pixels, as a task hands it on (`Fingerprint.pixelDigest`).
  package static func pixelDigest(_ image: PixelImage) -> String {
    image.withUnsafeBytes { pixelDigest(width: image.width, height: image.height, pixels: $0) }
  }
}

/// Images for the cache, which stores them but does not decode them: a PNG's pixels' digest.
package struct PNGPixels: ImageDigesting {
  package init() {}

  package func pixelDigest(ofPNG png: [UInt8], name: String) -> String? {
    guard let image = try? ImageCodec.decode(png, name: name) else { return nil }
    return Fingerprint.pixelDigest(image)
  }
}
