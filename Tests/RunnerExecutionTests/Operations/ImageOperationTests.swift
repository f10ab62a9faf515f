import Foundation
import Imaging
import Testing

@testable import RunnerExecution

/// Image tasks through the real scheduler: images handed along edges in memory.
@Suite struct ImageOperationTests {
  /// A 40×20 image: left half red, right half blue.
  func writeSource(_ harness: RunHarness, name: String = "in.png") throws {
    var image = PixelImage(width: 40, height: 20, fill: (255, 0, 0, 255))
    for y in 0..<20 { for x in 20..<40 { image.setPixel(x: x, y: y, (0, 0, 255, 255)) } }
    try ImageCodec.save(image, to: harness.directory.appendingPathComponent(name).path)
  }

  func files(in harness: RunHarness) -> Set<String> {
    let enumerator = FileManager.default.enumerator(atPath: harness.directory.path)
    return Set((enumerator?.allObjects as? [String] ?? []).filter { !$0.hasPrefix(".scratch") })
  }

  @Test func imagesTravelAlongEdgesWithoutFiles() async throws {
    let harness = try RunHarness(
      """
      tasks:
        photo:
          image: [{load: in.png}]
        small:
          deps: [photo]
          image: [{resize: {width: 10}}, grayscale, {rotate: 90}]
        saved:
          deps: [small]
          image: [{flip: horizontal}, {save: out/final.png}]
      """)
    try writeSource(harness)
    let (summary, _) = try await harness.run()
    #expect(summary.succeeded, "\(summary.failures.map(\.reason))")
    #expect(files(in: harness) == ["tasks.yml", "in.png", "out", "out/final.png"])
    let result = try ImageCodec.load(path: harness.directory.appendingPathComponent("out/final.png").path)
    #expect(result.width == 5 && result.height == 10)
    let pixel = result.pixel(x: 0, y: 0)
    #expect(pixel.r == pixel.g && pixel.g == pixel.b)
  }

  @Test func imageOutputsReachShellDependents() async throws {
    let harness = try RunHarness(
      """
      tasks:
        photo: {image: [{load: in.png}, {crop: {x: 0, y: 0, width: 8, height: 6}}]}
        report:
          deps: [photo]
          env: {SIZE: "${{ deps.photo.outputs.width }}x${{ deps.photo.outputs.height }}"}
          run: printf '%s' "$SIZE" > size
      """)
    try writeSource(harness)
    let (summary, _) = try await harness.run()
    #expect(summary.succeeded)
    #expect(harness.file("size") == "8x6")
  }

  @Test func failFastCancelsALongBlur() async throws {
    let harness = try RunHarness(
      """
      tasks:
        heavy: {image: [{load: in.png}, {resize: {scale: 100}}, {blur: 40}, {save: out/never.png}]}
        failing: sh -c 'sleep 0.2; exit 2'
      """)
    try writeSource(harness)
    let (summary, observer) = try await harness.run(jobs: 2)
    #expect(summary.failures.map(\.task) == [harness.index("failing")])
    #expect(observer.finalState(of: harness.index("heavy")) == .cancelled)
    #expect(harness.file("out/never.png") == nil)
  }

  @Test func corruptInputFailsNamingTheFileAndStep() async throws {
    let harness = try RunHarness("tasks:\n  bad: {image: [{load: broken.png}, grayscale]}\n")
    try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]).write(
      to: harness.directory.appendingPathComponent("broken.png"))
    let (summary, _) = try await harness.run()
    let reason = summary.failures.first?.reason.description ?? ""
    #expect(reason.contains("step 'load' (") && reason.contains("broken.png"), "\(reason)")
  }

  @Test func loadFollowedByBlurOrResizeOverlapsAndMatchesTheStepByStepResult() async throws {
    // The first task's load and blur (and the third's load and resize) run as one step; the
    // flips keep the others step by step. Both must give the same pixels.
    let harness = try RunHarness(
      """
      tasks:
        overlapped: {image: [{load: in.jpg}, {blur: 2}, {save: a.png}]}
        stepwise: {image: [{load: in.jpg}, {flip: horizontal}, {flip: horizontal}, {blur: 2}, {save: b.png}]}
        shrunk: {image: [{load: in.jpg}, {resize: {scale: 0.5}}, {save: c.png}]}
        shrunkStepwise: {image: [{load: in.jpg}, {flip: vertical}, {flip: vertical}, {resize: {scale: 0.5}}, {save: d.png}]}
        encoded: {image: [{load: in.jpg}, {blur: 2}, {save: {path: out/e.jpg, quality: 70}}, grayscale]}
        encodedStepwise:
          image: [{load: in.jpg}, {flip: horizontal}, {flip: horizontal}, {blur: 2}, {save: {path: f.jpg, quality: 70}}]
      """)
    var image = PixelImage(width: 64, height: 300, fill: (10, 20, 30, 255))
    for y in 0..<300 { for x in 0..<64 { image.setPixel(x: x, y: y, (UInt8(x * 3), UInt8(y % 256), 99, 255)) } }
    try ImageCodec.save(image, to: harness.directory.appendingPathComponent("in.jpg").path)
    let (summary, _) = try await harness.run()
    #expect(summary.succeeded, "\(summary.failures.map(\.reason))")
    let path = { (name: String) in harness.directory.appendingPathComponent(name).path }
    #expect(try ImageCodec.load(path: path("a.png")) == ImageCodec.load(path: path("b.png")))
    #expect(try ImageCodec.load(path: path("c.png")) == ImageCodec.load(path: path("d.png")))
    let encoded = FileManager.default.contents(atPath: path("out/e.jpg"))
    #expect(encoded != nil && encoded == FileManager.default.contents(atPath: path("f.jpg")))
  }

  @Test func truncatedJPEGBeforeABlurFailsNamingTheLoadStep() async throws {
    let harness = try RunHarness("tasks:\n  bad: {image: [{load: cut.jpg}, {blur: 3}]}\n")
    let bytes = try ImageCodec.encodeJPEG(PixelImage(width: 200, height: 200, fill: (1, 2, 3, 255)))
    try Data(bytes[..<(bytes.count / 2)]).write(to: harness.directory.appendingPathComponent("cut.jpg"))
    let (summary, _) = try await harness.run()
    let reason = summary.failures.first?.reason.description ?? ""
    #expect(reason.contains("step 'load' (") && reason.contains("cut.jpg"), "\(reason)")
  }
}
