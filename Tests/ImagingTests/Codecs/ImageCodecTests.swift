import Testing

@testable import Imaging

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Load and save")
struct ImageCodecTests {
  @Test("save then load", arguments: ["out.png", "out.jpg", "nested/deeper/out.jpeg"])
  func saveAndLoad(name: String) throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let image = JPEGCodecTests.quadrants()
    let path = directory.path + "/" + name
    try ImageCodec.save(image, to: path)
    let loaded = try ImageCodec.load(path: path)
    #expect(loaded.width == image.width && loaded.height == image.height)
    if name.hasSuffix(".png") {
      #expect(loaded == image)
    } else {
      #expect(meanDifference(loaded, image) <= 4)
    }
    // No temporary file is left beside the output.
    let folder = name.contains("/") ? "/nested/deeper" : ""
    #expect(directory.entries(folder).filter { $0.hasPrefix(".") }.isEmpty)
  }

  @Test func saveReplacesAnExistingFile() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.path + "/a.png"
    try ImageCodec.save(PixelImage(width: 2, height: 2, fill: (1, 2, 3, 255)), to: path)
    try ImageCodec.save(PixelImage(width: 3, height: 1, fill: (9, 8, 7, 255)), to: path)
    #expect(try ImageCodec.load(path: path).width == 3)
    #expect(directory.entries() == ["a.png"])
  }

  @Test func unwritableDirectoryIsAnError() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    // A regular file where a directory should be: even root cannot create below it.
    try ImageCodec.save(PixelImage(width: 1, height: 1, fill: (0, 0, 0, 255)), to: directory.path + "/file.png")
    let target = directory.path + "/file.png/sub/out.png"
    let error = #expect(throws: ImagingError.self) {
      try ImageCodec.save(PixelImage(width: 1, height: 1, fill: (0, 0, 0, 255)), to: target)
    }
    guard case .unwritable(let path, let reason)? = error else {
      Issue.record("expected .unwritable, got \(String(describing: error))")
      return
    }
    #expect(path == target)
    #expect(reason.contains("not a directory"))
    #expect(directory.entries() == ["file.png"])
  }

  @Test func writeFailureRemovesTheTemporaryFile() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    // rename() onto an existing non-empty directory fails after the temp file was written.
    let target = directory.path + "/taken.png"
    mkdir(target, 0o755)
    try ImageCodec.save(PixelImage(width: 1, height: 1, fill: (0, 0, 0, 255)), to: target + "/inner.png")
    #expect(throws: ImagingError.self) {
      try ImageCodec.save(PixelImage(width: 1, height: 1, fill: (0, 0, 0, 255)), to: target)
    }
    #expect(directory.entries() == ["taken.png"])
  }

  @Test func unknownExtensionNamesIt() {
    let error = #expect(throws: ImagingError.self) {
      try ImageCodec.save(PixelImage(width: 1, height: 1, fill: (0, 0, 0, 255)), to: "/tmp/whatever.webp")
    }
    #expect(
      error?.description
        == "cannot save '/tmp/whatever.webp': extension '.webp' is not a known image format (use .png, .jpg or .jpeg)")
  }

  @Test func loadingAMissingFileNamesIt() {
    let error = #expect(throws: ImagingError.self) { try ImageCodec.load(path: "/nonexistent/x.png") }
    #expect(error?.description == "cannot read '/nonexistent/x.png': no such file or directory")
  }
}
