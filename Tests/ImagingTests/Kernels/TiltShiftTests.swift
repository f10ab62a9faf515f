import Testing

@testable import Imaging

@Suite("Tilt-shift")
struct TiltShiftTests {
  @Test func bandStaysSharpAndEdgesBlur() async throws {
    // Vertical stripes: blur shows as a loss of contrast.
    var image = PixelImage(width: 40, height: 60, fill: (0, 0, 0, 255))
    for y in 0..<60 {
      for x in 0..<40 where (x / 2) % 2 == 0 { image.setPixel(x: x, y: y, (255, 255, 255, 255)) }
    }
    let result = try await image.tiltShift(focus: 0.5, band: 0.2, sigma: 3)
    func contrast(_ y: Int) -> Int {
      let values = (10..<30).map { Int(result.pixel(x: $0, y: y).r) }
      return values.max()! - values.min()!
    }
    #expect(contrast(30) == 255)
    #expect(contrast(0) < 60)
    #expect(contrast(59) < 60)
    #expect(contrast(10) > contrast(0))
    #expect(contrast(20) >= contrast(10))
  }

  @Test func argumentsAreChecked() async {
    await #expect(throws: ImagingError.self) {
      try await PixelImage(width: 4, height: 4, fill: (0, 0, 0, 255)).tiltShift(focus: 1.5, band: 0.1, sigma: 2)
    }
  }
}
