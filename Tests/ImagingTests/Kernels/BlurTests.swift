import Testing

@testable import Imaging

@Suite("Blur and sharpen")
struct BlurTests {
  @Test("blur of an impulse is the 2-D Gaussian and keeps its total", arguments: [0.8, 2.0, 5.0])
  func impulse(sigma: Double) async throws {
    let size = 41
    let centre = 20
    var image = PixelImage(width: size, height: size, fill: (0, 0, 0, 255))
    image.setPixel(x: centre, y: centre, (255, 255, 255, 255))
    let blurred = try await image.blurred(sigma: sigma)
    let weights = GaussianKernel(sigma: sigma).weights
    var total = 0
    var exact = 0.0
    var support = 0
    for y in 0..<size {
      for x in 0..<size {
        let (dx, dy) = (abs(x - centre), abs(y - centre))
        let expected = dx < weights.count && dy < weights.count ? 255 * Double(weights[dx] * weights[dy]) : 0
        let pixel = blurred.pixel(x: x, y: y)
        #expect(abs(Double(pixel.r) - expected) <= 0.51)
        #expect(pixel.r == pixel.g && pixel.g == pixel.b && pixel.a == 255)
        total += Int(pixel.r)
        exact += expected
        if expected > 0 { support += 1 }
      }
    }
    // The unrounded values sum to the impulse; rounding moves each output by at most 1/2.
    #expect(abs(exact - 255) < 0.01)
    #expect(abs(Double(total) - 255) <= Double(support) / 2)
  }

  @Test func blurMatchesTheGaussianProfile() async throws {
    // A vertical line blurred with sigma 2: columns follow the 1-D kernel weights.
    var image = PixelImage(width: 31, height: 9, fill: (0, 0, 0, 255))
    for y in 0..<9 { image.setPixel(x: 15, y: y, (200, 200, 200, 255)) }
    let blurred = try await image.blurred(sigma: 2)
    let kernel = GaussianKernel(sigma: 2)
    for distance in 0...6 {
      let expected = Int((200 * kernel.weights[distance]).rounded())
      #expect(abs(Int(blurred.pixel(x: 15 + distance, y: 4).r) - expected) <= 1)
    }
  }

  @Test func flatImageStaysFlat() async throws {
    let image = PixelImage(width: 50, height: 30, fill: (10, 100, 250, 255))
    #expect(try await image.blurred(sigma: 3) == image)
  }

  @Test func kernelIsNormalisedWithRadiusThreeSigma() {
    let kernel = GaussianKernel(sigma: 5)
    #expect(kernel.radius == 15)
    let total = kernel.weights[0] + 2 * kernel.weights[1...].reduce(0, +)
    #expect(abs(total - 1) < 1e-5)
  }

  @Test func zeroSigmaIsIdentityAndNegativeIsAnError() async throws {
    let image = gradientImage(width: 8, height: 8)
    #expect(try await image.blurred(sigma: 0) == image)
    await #expect(throws: ImagingError.self) { try await image.blurred(sigma: -1) }
  }

  @Test func bandedParallelMatchesSingleBand() async throws {
    // Tall enough to be split into many bands; the result must not depend on band edges.
    let image = gradientImage(width: 300, height: 900)
    let blurred = try await image.blurred(sigma: 1.5)
    let strip = try image.cropped(x: 0, y: 400, width: 300, height: 100)
    let reference = try await strip.blurred(sigma: 1.5)
    for y in 10..<90 {
      for x in stride(from: 0, to: 300, by: 7) {
        #expect(blurred.pixel(x: x, y: 400 + y) == reference.pixel(x: x, y: y))
      }
    }
  }

  @Test func cancellationStopsALongBlur() async throws {
    let image = PixelImage(width: 1500, height: 1500, fill: (90, 90, 90, 255))
    let work = Task { try await image.blurred(sigma: 40) }
    work.cancel()
    await #expect(throws: CancellationError.self) { try await work.value }
  }

  @Test func sharpenIncreasesEdgeContrast() async throws {
    var image = PixelImage(width: 20, height: 4, fill: (100, 100, 100, 255))
    for y in 0..<4 {
      for x in 10..<20 { image.setPixel(x: x, y: y, (150, 150, 150, 255)) }
    }
    let sharp = try await image.sharpened(sigma: 1, amount: 1)
    #expect(sharp.pixel(x: 9, y: 2).r < 100)
    #expect(sharp.pixel(x: 10, y: 2).r > 150)
    #expect(sharp.pixel(x: 0, y: 2).r == 100)
    #expect(sharp.pixel(x: 10, y: 2).a == 255)
  }
}
