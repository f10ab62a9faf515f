import Foundation
import Imaging
import Testing

@testable import RunnerCache

/// Image tasks are cacheable by default; the image itself is kept so dependents get it.
@Suite struct ImageCachingTests {
  static let yaml = """
    tasks:
      photo:
        image:
          - load: photo.png
      small:
        deps: [photo]
        image:
          - resize: { width: 8 }
          - save: out/small.png
      gray:
        deps: [small]
        image:
          - grayscale
          - save: out/gray.png
    """

  func harness() throws -> RunHarness {
    let harness = try RunHarness(Self.yaml)
    var image = PixelImage(width: 16, height: 12, fill: (200, 40, 40, 255))
    image.setPixel(x: 3, y: 3, (0, 255, 0, 255))
    try ImageCodec.save(image, to: harness.path("photo.png"))
    return harness
  }

  @Test func upToDateImagesReachDependents() async throws {
    let harness = try harness()
    let first = try await harness.runCached()
    #expect(first.ran == ["gray", "photo", "small"])
    let gray = try ImageCodec.load(path: harness.path("out/gray.png"))
    let second = try await harness.runCached()
    #expect(second.ran == [])
    #expect(second.outcome("photo") == "up to date")
    harness.remove("out/gray.png")
    let third = try await harness.runCached()
    #expect(third.outcome("gray") == "restored from cache")
    #expect(try ImageCodec.load(path: harness.path("out/gray.png")) == gray)
  }

  @Test func changedInputImageReruns() async throws {
    let harness = try harness()
    _ = try await harness.runCached()
    try ImageCodec.save(PixelImage(width: 16, height: 12, fill: (0, 0, 200, 255)), to: harness.path("photo.png"))
    #expect(try await harness.runCached().ran == ["gray", "photo", "small"])
  }

  @Test func restoredImageFeedsARunningDependent() async throws {
    let harness = try harness()
    _ = try await harness.runCached()
    let expected = try ImageCodec.load(path: harness.path("out/gray.png"))
    // Only gray's definition changes: small is up to date and hands over its cached image.
    try harness.write(
      "tasks.yml", Self.yaml.replacingOccurrences(of: "- grayscale", with: "- grayscale\n      - flip: horizontal"))
    let run = try await harness.runCached()
    #expect(run.ran == ["gray"])
    #expect(run.outcome("small") == "up to date")
    #expect(
      try ImageCodec.load(path: harness.path("out/gray.png")) == expected.flipped(horizontal: true, vertical: false))
    // With --force every image task runs again.
    #expect(try await harness.runCached(settings: CacheSettings(force: true)).ran == ["gray", "photo", "small"])
  }
}
