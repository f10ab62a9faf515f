import Testing

@testable import Imaging

@Suite("Colour kernels")
struct ColorTests {
  @Test(
    "grayscale uses Rec. 709 luma",
    arguments: [
      ((255, 0, 0), 54), ((0, 255, 0), 182), ((0, 0, 255), 18), ((255, 255, 255), 255), ((0, 0, 0), 0),
    ])
  func grayscale(colour: (Int, Int, Int), luma: Int) async throws {
    let image = PixelImage(width: 3, height: 2, fill: (UInt8(colour.0), UInt8(colour.1), UInt8(colour.2), 77))
    let gray = try await image.grayscale()
    expectPixel(gray, x: 1, y: 1, (UInt8(luma), UInt8(luma), UInt8(luma), 77))
  }

  @Test func sepiaOfWhiteAndGray() async throws {
    let white = try await PixelImage(width: 2, height: 2, fill: (255, 255, 255, 255)).sepia(amount: 1)
    expectPixel(white, x: 0, y: 0, (255, 255, 239, 255))
    let gray = try await PixelImage(width: 2, height: 2, fill: (128, 128, 128, 255)).sepia(amount: 1)
    expectPixel(gray, x: 1, y: 1, (173, 154, 120, 255))
    let half = try await PixelImage(width: 2, height: 2, fill: (128, 128, 128, 255)).sepia(amount: 0.5)
    expectPixel(half, x: 1, y: 1, (151, 141, 124, 255), tolerance: 1)
    let none = try await PixelImage(width: 2, height: 2, fill: (128, 128, 128, 255)).sepia(amount: 0)
    expectPixel(none, x: 1, y: 1, (128, 128, 128, 255))
  }

  @Test func sepiaAmountIsChecked() async {
    await #expect(throws: ImagingError.self) {
      try await PixelImage(width: 1, height: 1, fill: (0, 0, 0, 0)).sepia(amount: 2)
    }
  }

  @Test func vignetteKeepsTheCentreAndDarkensCorners() async throws {
    let image = PixelImage(width: 21, height: 11, fill: (200, 200, 200, 255))
    let result = try await image.vignette(strength: 0.5)
    expectPixel(result, x: 10, y: 5, (200, 200, 200, 255))
    expectPixel(result, x: 0, y: 0, (100, 100, 100, 255))
    expectPixel(result, x: 20, y: 10, (100, 100, 100, 255))
  }

  @Test func brightnessAndContrast() async throws {
    let image = PixelImage(width: 2, height: 1, fill: (100, 128, 200, 255))
    #expect(try await image.adjusted(brightness: 0, contrast: 0) == image)
    let brighter = try await image.adjusted(brightness: 0.1, contrast: 0)
    expectPixel(brighter, x: 0, y: 0, (126, 154, 226, 255), tolerance: 1)
    let flat = try await image.adjusted(brightness: 0, contrast: -1)
    expectPixel(flat, x: 0, y: 0, (128, 128, 128, 255), tolerance: 1)
    let punchy = try await image.adjusted(brightness: 0, contrast: 1)
    expectPixel(punchy, x: 0, y: 0, (73, 129, 255, 255), tolerance: 1)
  }
}
