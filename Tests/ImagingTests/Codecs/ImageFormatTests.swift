import Testing

@testable import Imaging

@Suite("Format sniffing")
struct ImageFormatTests {
  @Test func emptyInput() throws {
    #expect(throws: ImagingError.emptyInput(name: "empty.png")) {
      try ImageCodec.decode(Fixtures.bytes("empty.png"), name: "empty.png")
    }
    #expect(ImagingError.emptyInput(name: "empty.png").description == "'empty.png' is empty (0 bytes)")
  }

  @Test func unknownFormatShowsTheFirstBytes() throws {
    let error = #expect(throws: ImagingError.self) {
      try ImageCodec.decode(Fixtures.bytes("not-an-image.png"), name: "not-an-image.png")
    }
    #expect(
      error?.description
        == "'not-an-image.png' is not a png or jpeg image (it starts with bytes 68 65 6c 6c 6f 2c 20 77, text \"hello, w\")"
    )
  }

  @Test func formatComesFromBytesNotTheName() throws {
    let image = try ImageCodec.decode(Fixtures.bytes("rgb8.png"), name: "photo.jpg")
    #expect(image.width == 5)
  }

  @Test(
    "save extension",
    arguments: [("a.png", ImageFormat.png), ("b.JPG", .jpeg), ("dir.x/c.jpeg", .jpeg)])
  func saveExtension(path: String, format: ImageFormat) throws {
    #expect(try ImageFormat.forSaving(path: path) == format)
  }

  @Test("unknown save extension", arguments: [("out.gif", "gif"), ("dir.png/out", "")])
  func unknownExtension(path: String, ext: String) {
    #expect(throws: ImagingError.unknownExtension(path: path, ext: ext)) { try ImageFormat.forSaving(path: path) }
  }
}
