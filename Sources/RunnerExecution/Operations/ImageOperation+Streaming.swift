import Imaging
import RunnerEvents
import RunnerModel

/// A load directly followed by a blur or resize runs as one step, so that the kernel works
/// on the top of the image while libjpeg (one core) decodes the rest; a JPEG save right
/// after joins in too, encoding rows as the kernel finishes them.
extension ImageOperation {
  /// The kernel to run behind the decoder, when the steps start with a file or URL load
  /// followed by a blur or resize.
  var leadingKernel: LeadingKernel? {
    guard steps.count >= 2, case .load(let source, _) = steps[0].kind else { return nil }
    if case .dependency = source { return nil }
    switch steps[1].kind {
    case .blur(let sigma):
      return .blur(sigma: sigma)
    case .resize(let width, let height, let scale, let filter):
      return .resize(width: width, height: height, scale: scale, filter: filter == .bilinear ? .bilinear : .lanczos3)
    default:
      return nil
    }
  }

  /// The third step, when it saves a JPEG and can join the first two.
  var joinedSave: (path: String, quality: Int)? {
    guard steps.count >= 3, case .save(let path, let quality) = steps[2].kind,
      (try? ImageFormat.forSaving(path: path)) == .jpeg
    else { return nil }
    return (path, quality)
  }

  /// Runs the first two steps together (three with `save`); errors name the step they belong to.
  func loadApplying(
    _ kernel: LeadingKernel, saving save: (path: String, quality: Int)?, _ context: OperationContext
  ) async throws -> PixelImage {
    guard case .load(let source, let maxPixels) = steps[0].kind else {
      preconditionFailure("loadApplying needs a load step first")
    }
    do {
      let bytes: [UInt8]
      let name: String
      switch source {
      case .path(let path):
        name = resolve(path, context)
        bytes = try ImageCodec.read(path: name)
      case .url(let url):
        name = url
        bytes = try await fetcher.fetch(url, timeout: Self.fetchTimeout, maxBytes: Self.maximumDownload)
      case .dependency:
        preconditionFailure("a dependency's image is already decoded")
      }
      guard let save else {
        return try await ImageCodec.decode(bytes, name: name, maxPixels: maxPixels, applying: kernel)
      }
      let result = try await ImageCodec.decode(
        bytes, name: name, maxPixels: maxPixels, applying: kernel, encodingJPEG: save.quality)
      try ImageCodec.write(result.jpeg, to: resolve(save.path, context))
      return result.image
    } catch let error as ImagingError {
      throw TaskFailure.message("step '\(step(for: error).name)' (\(step(for: error).location)): \(error)")
    }
  }

  /// Which of the joined steps an error belongs to.
  private func step(for error: ImagingError) -> ImageStep {
    switch error {
    case .invalidArgument(let operation, _) where operation == "jpeg quality": return steps[2]
    case .invalidArgument: return steps[1]
    case .encodeFailed, .unwritable, .unknownExtension: return steps[2]
    default: return steps[0]
    }
  }
}
