import Testing

@testable import Imaging

@Suite("Resize")
struct ResizeTests {
  @Test(
    "target size keeps the aspect ratio when one side is given",
    arguments: [
      (400, 300, 200 as Int?, nil as Int?, nil as Double?, 200, 150),
      (400, 300, nil, 150, nil, 200, 150),
      (400, 300, 100, 100, nil, 100, 100),
      (400, 300, nil, nil, 0.5, 200, 150),
      (3, 1000, 1, nil, nil, 1, 333),
      (1000, 3, 10, nil, nil, 10, 1),
    ])
  func targetSize(
    sourceWidth: Int, sourceHeight: Int, width: Int?, height: Int?, scale: Double?, expectedWidth: Int,
    expectedHeight: Int
  ) throws {
    let size = try ResizeGeometry.targetSize(
      sourceWidth: sourceWidth, sourceHeight: sourceHeight, width: width, height: height, scale: scale)
    #expect(size.width == expectedWidth && size.height == expectedHeight)
  }

  @Test func targetSizeErrors() {
    #expect(throws: ImagingError.self) { try ResizeGeometry.targetSize(sourceWidth: 4, sourceHeight: 4) }
    #expect(throws: ImagingError.self) { try ResizeGeometry.targetSize(sourceWidth: 4, sourceHeight: 4, width: 0) }
    #expect(throws: ImagingError.self) { try ResizeGeometry.targetSize(sourceWidth: 4, sourceHeight: 4, scale: -1) }
    #expect(throws: ImagingError.self) {
      try ResizeGeometry.targetSize(sourceWidth: 4, sourceHeight: 4, width: 2, scale: 1)
    }
  }

  @Test("dimensions", arguments: ResizeFilter.allCases)
  func dimensions(filter: ResizeFilter) async throws {
    let image = gradientImage(width: 60, height: 40)
    let half = try await image.resized(width: 30, filter: filter)
    #expect(half.width == 30 && half.height == 20)
    let up = try await image.resized(height: 100, filter: filter)
    #expect(up.width == 150 && up.height == 100)
    let scaled = try await image.resized(scale: 0.25, filter: filter)
    #expect(scaled.width == 15 && scaled.height == 10)
  }

  @Test("flat colours survive resampling", arguments: ResizeFilter.allCases)
  func flat(filter: ResizeFilter) async throws {
    let image = PixelImage(width: 33, height: 17, fill: (12, 130, 240, 200))
    #expect(
      try await image.resized(width: 13, height: 29, filter: filter)
        == PixelImage(width: 13, height: 29, fill: (12, 130, 240, 200)))
  }

  @Test func downscaleAveragesAndUpscaleInterpolates() async throws {
    // A 2x2 checker of 0 and 200 halves to its mean.
    var image = PixelImage(width: 8, height: 8, fill: (0, 0, 0, 255))
    for y in 0..<8 {
      for x in 0..<8 where (x + y) % 2 == 0 { image.setPixel(x: x, y: y, (200, 200, 200, 255)) }
    }
    let small = try await image.resized(width: 1, height: 1, filter: .bilinear)
    #expect(abs(Int(small.pixel(x: 0, y: 0).r) - 100) <= 2)
    let ramp = try await gradientImage(width: 10, height: 2).resized(width: 20, height: 2, filter: .bilinear)
    #expect(ramp.pixel(x: 9, y: 0).r <= ramp.pixel(x: 10, y: 0).r)
  }
}
