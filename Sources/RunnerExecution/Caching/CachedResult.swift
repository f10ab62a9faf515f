import Imaging

/// A result that knows its task's fingerprint, so dependents' fingerprints can include it.
package protocol FingerprintProviding: OperationResult {
  /// What stands in for the task in its dependents' keys besides `outputDigest`
  /// (`Fingerprint.standIn`): its key, or, when it declares outputs, its own dependencies'
  /// digest.
  var fingerprint: String? { get }
  /// Digest of what the task hands on: output values, output files, image pixels.
  var outputDigest: String { get }
}

/// A result with a word for the console, appended to the succeeded line (`✓ build up to date`).
package protocol RunNoteProviding: OperationResult {
  var note: String? { get }
}

/// What a cached task provides, whether it ran, was up to date or was restored.
package struct CachedResult: OutputProviding, FingerprintProviding, RunNoteProviding {
  package var outputs: [String: String]
  package var fingerprint: String?
  package var outputDigest: String
  package var note: String?
  /// The first part of a task decided as one found it up to date or restored it: the result
  /// stands for every part, and the calls are not made (`WholeTask`).
  package var decidesParts = false
}

/// The same for an image task, with its image.
package struct CachedImageResult: ImageProviding, OutputProviding, FingerprintProviding, RunNoteProviding {
  package var image: PixelImage
  package var outputs: [String: String]
  package var fingerprint: String?
  package var outputDigest: String
  package var note: String?
}

extension CachedResult {
  /// The note of a task that was up to date.
  package static let upToDate = "up to date"

  /// The dependent-facing result: with the image when there is one.
  static func make(
    outputs: [String: String], image: PixelImage?, fingerprint: String?, outputDigest: String, note: String?
  ) -> any OperationResult {
    if let image {
      return CachedImageResult(
        image: image, outputs: outputs, fingerprint: fingerprint, outputDigest: outputDigest, note: note)
    }
    return CachedResult(outputs: outputs, fingerprint: fingerprint, outputDigest: outputDigest, note: note)
  }
}
