import Imaging
import RunnerBasics
import RunnerEvents
import RunnerModel

/// A result that carries an image, handed to dependents in memory (no temporary file).
package protocol ImageProviding: OperationResult {
  var image: PixelImage { get }
}

/// What an image task provides: its final image, and outputs describing it.
package struct ImageResult: ImageProviding, OutputProviding {
  package var image: PixelImage
  package var outputs: [String: String]
}

/// Runs a task's built-in image steps in order on one image in memory.
///
/// The input is the first step's `load` (a file, a URL, or a named dependency's image) or,
/// without one, the image of the dependency chosen at load time. Kernels check for
/// cancellation between row bands, so fail-fast stops a long blur within milliseconds.
package struct ImageOperation: TaskOperation {
  static let fetchTimeout = Duration.seconds(60)
  static let maximumDownload = 512 << 20

  package let steps: [ImageStep]
  let fetcher: any URLFetching

  package init(steps: [ImageStep], fetcher: any URLFetching) {
    self.steps = steps
    self.fetcher = fetcher
  }

  package func run(_ context: OperationContext) async throws(TaskFailure) -> any OperationResult {
    try await withTaskExecutorPreference(ComputeExecutor.shared) { () async throws(TaskFailure) in
      try await runSteps(context)
    }
  }

  func runSteps(_ context: OperationContext) async throws(TaskFailure) -> any OperationResult {
    var image: PixelImage?
    var saved: String?
    do {
      var remaining = steps[...]
      if let kernel = leadingKernel {
        let save = joinedSave
        image = try await loadApplying(kernel, saving: save, context)
        if let save { saved = save.path }
        remaining = steps.dropFirst(save == nil ? 2 : 3)
      } else if case .load = steps.first?.kind {
      } else {
        image = try input(named: context.imageInput, context)
      }
      for step in remaining {
        if Task.isCancelled { throw TaskFailure.cancelled }
        if case .save(let path, _) = step.kind { saved = path }
        image = try await apply(step, to: image, context)
      }
    } catch let failure as TaskFailure {
      throw failure
    } catch is CancellationError {
      throw .cancelled
    } catch {
      throw .message("\(error)")
    }
    guard let image else { throw .message("no image was produced") }
    var outputs = ["width": String(image.width), "height": String(image.height)]
    if let saved { outputs["path"] = saved }
    return ImageResult(image: image, outputs: outputs)
  }

  func input(named name: String?, _ context: OperationContext) throws(TaskFailure) -> PixelImage {
    guard let name, let provider = context.inputs[name] as? any ImageProviding else {
      throw .message("no input image: the dependency '\(name ?? "?")' provided none")
    }
    return provider.image
  }

  func resolve(_ path: String, _ context: OperationContext) -> String {
    FilePath.resolve(path, in: context.workingDirectory)
  }

  /// Applies one step; errors name the step and where it is written.
  func apply(_ step: ImageStep, to current: PixelImage?, _ context: OperationContext) async throws -> PixelImage {
    do {
      if case .load(let source, let maxPixels) = step.kind {
        switch source {
        case .path(let path): return try ImageCodec.load(path: resolve(path, context), maxPixels: maxPixels)
        case .url(let url):
          let bytes = try await fetcher.fetch(url, timeout: Self.fetchTimeout, maxBytes: Self.maximumDownload)
          return try ImageCodec.decode(bytes, name: url, maxPixels: maxPixels)
        case .dependency(let name): return try input(named: name, context)
        }
      }
      guard let image = current else { throw TaskFailure.message("no input image") }
      switch step.kind {
      case .load: return image
      case .resize(let width, let height, let scale, let filter):
        let kind: ResizeFilter = filter == .bilinear ? .bilinear : .lanczos3
        if let scale { return try await image.resized(scale: scale, filter: kind) }
        return try await image.resized(width: width, height: height, filter: kind)
      case .crop(let x, let y, let width, let height):
        return try image.cropped(x: x, y: y, width: width, height: height)
      case .blur(let sigma): return try await image.blurred(sigma: sigma)
      case .sharpen(let sigma, let amount): return try await image.sharpened(sigma: sigma, amount: amount)
      case .grayscale: return try await image.grayscale()
      case .sepia(let amount): return try await image.sepia(amount: amount)
      case .tiltShift(let focus, let band, let sigma):
        return try await image.tiltShift(focus: focus, band: band, sigma: sigma)
      case .vignette(let strength): return try await image.vignette(strength: strength)
      case .brightness(let amount): return try await image.adjusted(brightness: amount)
      case .contrast(let amount): return try await image.adjusted(contrast: amount)
      case .flip(let horizontal): return image.flipped(horizontal: horizontal, vertical: !horizontal)
      case .rotate(let degrees): return try image.rotated(degrees: degrees)
      case .save(let path, let quality):
        try ImageCodec.save(image, to: resolve(path, context), quality: quality)
        return image
      }
    } catch let error as ImagingError {
      throw TaskFailure.message("step '\(step.name)' (\(step.location)): \(error)")
    }
  }
}
