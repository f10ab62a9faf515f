import Foundation
import Imaging
import Testing

@testable import RunnerCache

/// The hasher gathers small fields into blocks: digests must be exactly SHA-256 of the
/// length-prefixed fields, whatever the sizes and however they fall across block boundaries.
@Suite struct ContentHasherTests {
  static func field(_ bytes: [UInt8]) -> [UInt8] {
    withUnsafeBytes(of: Int64(bytes.count).littleEndian) { Array($0) } + bytes
  }

  @Test(arguments: [
    [1, 2, 3], [4095, 1, 7], [4088, 8], [5000], [3, 4096, 2, 9000, 1], Array(repeating: 100, count: 90),
  ])
  func fieldsHashAsTheirConcatenation(sizes: [Int]) {
    var hasher = ContentHasher()
    var whole: [UInt8] = []
    for (index, size) in sizes.enumerated() {
      let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
      bytes.withUnsafeBytes { hasher.add(bytes: $0) }
      whole += Self.field(bytes)
    }
    let expected = whole.withUnsafeBytes { ContentHasher.digest($0) }
    #expect(hasher.finalize() == expected)
    #expect(hasher.finalize() == expected, "finalize leaves the hasher as it was")
  }

  @Test func aFileHashesAsSha256sumSaysItDoes() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("hasher-\(UUID().uuidString)").path
    defer { unlink(path) }
    let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(CacheFileSystem.hashFile(path) == String(output.prefix(64)))
    #expect(bytes.withUnsafeBytes { ContentHasher.digest($0) } == String(output.prefix(64)))
  }
}

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
