import Testing

@testable import Imaging

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Kernels that follow the decoder")
struct LeadingKernelTests {
  static let kernels: [LeadingKernel] = [
    .blur(sigma: 1.5), .blur(sigma: 5), .blur(sigma: 0),
    .resize(width: nil, height: nil, scale: 0.5, filter: .lanczos3),
    .resize(width: 97, height: nil, scale: nil, filter: .bilinear),
    .resize(width: 300, height: 600, scale: nil, filter: .lanczos3),
  ]

  @Test("decode while applying equals decode, then apply", arguments: kernels)
  func overlappedEqualsSequential(kernel: LeadingKernel) async throws {
    // Tall enough for many bands, so that bands wait on the decoder at different rows.
    let bytes = try JPEGBandDecoderTests.detailedJPEG(width: 150, height: 1200)
    let sequential = try await kernel.apply(to: ImageCodec.decode(bytes, name: "a.jpg"))
    let overlapped = try await ImageCodec.decode(bytes, name: "a.jpg", applying: kernel)
    #expect(overlapped == sequential)
  }

  @Test("decode, apply and encode overlapped equals the three one after another", arguments: kernels)
  func encodedWhileApplyingEqualsSequential(kernel: LeadingKernel) async throws {
    let bytes = try JPEGBandDecoderTests.detailedJPEG(width: 150, height: 1200)
    let sequential = try await kernel.apply(to: ImageCodec.decode(bytes, name: "a.jpg"))
    let overlapped = try await ImageCodec.decode(bytes, name: "a.jpg", applying: kernel, encodingJPEG: 85)
    #expect(overlapped.image == sequential)
    #expect(overlapped.jpeg == (try ImageCodec.encodeJPEG(sequential, quality: 85)))
  }

  @Test func badQualityIsReportedBeforeDecoding() async throws {
    let bytes = try JPEGBandDecoderTests.detailedJPEG(width: 64, height: 64)
    await #expect(throws: ImagingError.invalidArgument(operation: "jpeg quality", reason: "0 is outside 1...100")) {
      try await ImageCodec.decode(bytes, name: "a.jpg", applying: .blur(sigma: 1), encodingJPEG: 0)
    }
  }

  @Test func pngTakesTheSequentialPath() async throws {
    let image = gradientImage(width: 60, height: 40)
    let bytes = try ImageCodec.encodePNG(image)
    let result = try await ImageCodec.decode(bytes, name: "a.png", applying: .blur(sigma: 2))
    #expect(result == (try await image.blurred(sigma: 2)))
  }

  @Test func badArgumentsAreReportedBeforeDecoding() async throws {
    let bytes = try JPEGBandDecoderTests.detailedJPEG(width: 64, height: 64)
    await #expect(throws: ImagingError.self) {
      try await ImageCodec.decode(bytes, name: "a.jpg", applying: .blur(sigma: -1))
    }
    await #expect(throws: ImagingError.self) {
      try await ImageCodec.decode(
        bytes, name: "a.jpg", applying: .resize(width: 10, height: nil, scale: 0.5, filter: .lanczos3))
    }
  }

  @Test func truncatedJPEGFailsAsCorruptNotAsAHalfBlurredImage() async throws {
    let bytes = try JPEGBandDecoderTests.detailedJPEG(width: 300, height: 600)
    let error = await #expect(throws: ImagingError.self) {
      try await ImageCodec.decode(
        Array(bytes[..<(bytes.count / 2)]), name: "cut.jpg", applying: .blur(sigma: 3), encodingJPEG: 80)
    }
    guard case .corrupt(let name, _)? = error else {
      Issue.record("expected .corrupt, got \(String(describing: error))")
      return
    }
    #expect(name == "cut.jpg")
  }

  /// Cancelled once decoding is under way, the blur stops with rows of the image undone:
  /// what the rows say, not a clock (the cores are shared with other suites).
  @Test func cancellationStopsTheBlurFollowingTheDecoder() async throws {
    let size = 1500
    let bytes = try ImageCodec.encodeJPEG(PixelImage(width: size, height: size, fill: (90, 90, 90, 255)))
    let decoder = try JPEGBandDecoder(bytes, name: "a.jpg", maxPixels: size * size)
    let output = PixelStorage(uninitializedCount: size * size * 4)
    let completion = BandCompletion()
    let work = Task {
      try await LeadingKernel.blur(sigma: 40).apply(following: decoder, into: output, completion: completion)
    }
    while decoder.progress.rowsReady == 0 { try await Task.sleep(for: .milliseconds(1)) }
    work.cancel()
    await #expect(throws: CancellationError.self) { try await work.value }
    decoder.progress.stop()
    _ = decoder.progress.waitUntilEnded()
    // Finishing σ 40 over 1500 × 1500 would have completed every row.
    #expect(completion.progress.rowsReady < size)
  }

}
