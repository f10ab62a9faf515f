import Testing

@testable import Imaging

@Suite("Crop, flip, rotate")
struct GeometryTests {
  @Test func cropTakesTheRectangle() throws {
    let image = gradientImage(width: 10, height: 8)
    let crop = try image.cropped(x: 3, y: 2, width: 4, height: 5)
    #expect(crop.width == 4 && crop.height == 5)
    #expect(crop.pixel(x: 0, y: 0) == image.pixel(x: 3, y: 2))
    #expect(crop.pixel(x: 3, y: 4) == image.pixel(x: 6, y: 6))
    #expect(try image.cropped(x: 0, y: 0, width: 10, height: 8) == image)
  }

  @Test(
    "crop outside the image is an error",
    arguments: [(-1, 0, 2, 2), (0, 0, 11, 1), (9, 7, 2, 1), (0, 0, 0, 3), (5, 5, 5, 4)])
  func cropBounds(rect: (Int, Int, Int, Int)) {
    let image = gradientImage(width: 10, height: 8)
    #expect(throws: ImagingError.self) { try image.cropped(x: rect.0, y: rect.1, width: rect.2, height: rect.3) }
  }

  @Test func flips() {
    let image = gradientImage(width: 5, height: 3)
    let h = image.flipped(horizontal: true)
    let v = image.flipped(vertical: true)
    for y in 0..<3 {
      for x in 0..<5 {
        #expect(h.pixel(x: x, y: y) == image.pixel(x: 4 - x, y: y))
        #expect(v.pixel(x: x, y: y) == image.pixel(x: x, y: 2 - y))
      }
    }
    #expect(h.flipped(horizontal: true) == image)
  }

  @Test("rotation is exact", arguments: [90, 180, 270, -90, 0, 360])
  func rotation(degrees: Int) throws {
    let image = gradientImage(width: 5, height: 3)
    let turned = try image.rotated(degrees: degrees)
    let turns = ((degrees / 90) % 4 + 4) % 4
    #expect(turned.width == (turns % 2 == 1 ? 3 : 5))
    for y in 0..<3 {
      for x in 0..<5 {
        let (tx, ty): (Int, Int)
        switch turns {
        case 1: (tx, ty) = (2 - y, x)
        case 2: (tx, ty) = (4 - x, 2 - y)
        case 3: (tx, ty) = (y, 4 - x)
        default: (tx, ty) = (x, y)
        }
        #expect(turned.pixel(x: tx, y: ty) == image.pixel(x: x, y: y))
      }
    }
    #expect(try turned.rotated(degrees: 360 - degrees) == image)
  }

  @Test func rotationByOddAnglesIsAnError() {
    #expect(throws: ImagingError.self) { try gradientImage(width: 2, height: 2).rotated(degrees: 45) }
  }

  @Test func copyOnWrite() {
    let original = PixelImage(width: 2, height: 2, fill: (1, 1, 1, 1))
    var copy = original
    copy.setPixel(x: 0, y: 0, (9, 9, 9, 9))
    #expect(original.pixel(x: 0, y: 0) == (1, 1, 1, 1))
    #expect(copy.pixel(x: 0, y: 0) == (9, 9, 9, 9))
  }
}
