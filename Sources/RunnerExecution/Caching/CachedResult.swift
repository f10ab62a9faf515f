import Imaging
import RunnerModel

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

/// A result that did not run its command here: how it ended instead.
package protocol ConcludedProviding: RunNoteProviding {
  var concluded: Concluded? { get }
}

extension ConcludedProviding {
  package var note: String? { concluded?.words }
}

/// What a cached task provides, whether it ran, was up to date or was restored.
package struct CachedResult: OutputProviding, FingerprintProviding, ConcludedProviding {
  package var outputs: [String: String]
  package var fingerprint: String?
  package var outputDigest: String
  /// nil for a task that ran here.
  package var concluded: Concluded?
  /// The first part of a task decided as one found it up to date or restored it: the result
  /// stands for every part, and the calls are not made (`WholeTask`).
  package var decidesParts = false
}

/// The same for an image task, with its image.
package struct CachedImageResult: ImageProviding, OutputProviding, FingerprintProviding, ConcludedProviding {
  package var image: PixelImage
  package var outputs: [String: String]
  package var fingerprint: String?
  package var outputDigest: String
  package var concluded: Concluded?
}

extension CachedResult {
  /// The dependent-facing result: with the image when there is one.
  static func make(
    outputs: [String: String], image: PixelImage?, fingerprint: String?, outputDigest: String, concluded: Concluded?
  ) -> any OperationResult {
    if let image {
      return CachedImageResult(
        image: image, outputs: outputs, fingerprint: fingerprint, outputDigest: outputDigest, concluded: concluded)
    }
    return CachedResult(outputs: outputs, fingerprint: fingerprint, outputDigest: outputDigest, concluded: concluded)
  }
}
