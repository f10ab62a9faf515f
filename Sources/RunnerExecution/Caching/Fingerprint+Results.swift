import RunnerCache
import RunnerModel

extension Fingerprint {
  /// What a finished dependency contributes to its dependents' fingerprints.
  package static func contribution(of result: any OperationResult, name: String) -> Dependency {
    // The usual case (a task that was up to date) first: a cast to a struct costs less.
    if let cached = result as? CachedResult {
      return Dependency(name: name, fingerprint: cached.fingerprint, outputDigest: cached.outputDigest)
    }
    // Then a command that ran, most often with no outputs: no protocol casts (each a lookup in
    // the runtime's conformance cache) and no hashing.
    if let shell = result as? ShellResult {
      let digest =
        shell.outputs.isEmpty ? emptyOutputDigest : outputDigest(values: shell.outputs, files: [], pixels: nil)
      return Dependency(name: name, fingerprint: nil, outputDigest: digest)
    }
    if let known = result as? any FingerprintProviding {
      return Dependency(name: name, fingerprint: known.fingerprint, outputDigest: known.outputDigest)
    }
    let values = (result as? any OutputProviding)?.outputs ?? [:]
    let pixels = (result as? any ImageProviding).map { pixelDigest($0.image) }
    return Dependency(
      name: name, fingerprint: nil, outputDigest: outputDigest(values: values, files: [], pixels: pixels))
  }

  /// `outputDigest` of a result with no values, files or pixels.
  static let emptyOutputDigest = outputDigest(values: [:], files: [], pixels: nil)
}
