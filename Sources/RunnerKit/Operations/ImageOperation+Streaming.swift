import Imaging

/// A load directly followed by a blur or resize runs as one step, so that the kernel works
/// on the top of the image while libjpeg (one core) decodes the rest.
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

  /// Runs the first two steps together; errors name the step they belong to.
  func loadApplying(_ kernel: LeadingKernel, _ context: OperationContext) async throws -> PixelImage {
    guard case .load(let source, let maxPixels) = steps[0].kind else {
      preconditionFailure("loadApplying needs a load step first")
    }
    do {
      switch source {
      case .path(let path):
        return try await ImageCodec.load(path: resolve(path, context), maxPixels: maxPixels, applying: kernel)
      case .url(let url):
        let bytes = try await fetch(url: url, timeout: Self.fetchTimeout, maxBytes: Self.maximumDownload)
        return try await ImageCodec.decode(bytes, name: url, maxPixels: maxPixels, applying: kernel)
      case .dependency:
        preconditionFailure("a dependency's image is already decoded")
      }
    } catch let error as ImagingError {
      let step: ImageStep
      if case .invalidArgument = error { step = steps[1] } else { step = steps[0] }
      throw TaskFailure.message("step '\(step.name)' (\(step.location)): \(error)")
    }
  }
}
