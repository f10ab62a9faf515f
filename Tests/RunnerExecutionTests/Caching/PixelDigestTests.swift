import Imaging
import RunnerCache
import Testing

@testable import RunnerExecution

/// The pixels' digest, hashed in 4 MiB pieces on all cores.
@Suite struct PixelDigestTests {
  @Test func equalImagesAgreeAndAnyPixelOrTheShapeChangesIt() {
    // 1200 × 1000 RGBA is 4.8 MB: two pieces, the second partial.
    var image = PixelImage(width: 1200, height: 1000, fill: (10, 20, 30, 255))
    let digest = Fingerprint.pixelDigest(image)
    #expect(digest.count == 64)
    #expect(Fingerprint.pixelDigest(PixelImage(width: 1200, height: 1000, fill: (10, 20, 30, 255))) == digest)
    image.setPixel(x: 1199, y: 999, (10, 20, 30, 254))  // in the second piece
    #expect(Fingerprint.pixelDigest(image) != digest)
    image.setPixel(x: 1199, y: 999, (10, 20, 30, 255))
    #expect(Fingerprint.pixelDigest(image) == digest)
    image.setPixel(x: 0, y: 0, (11, 20, 30, 255))  // in the first
    #expect(Fingerprint.pixelDigest(image) != digest)
    #expect(
      Fingerprint.pixelDigest(PixelImage(width: 1000, height: 1200, fill: (10, 20, 30, 255))) != digest,
      "the same bytes in another shape")
    #expect(Fingerprint.pixelDigest(PixelImage(width: 1, height: 1, pixels: [1, 2, 3, 4])).count == 64)
  }
}
