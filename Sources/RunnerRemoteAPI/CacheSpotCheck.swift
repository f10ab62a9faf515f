import RunnerCache

/// Spot checks of the remote cache (`--verify-cache=PERCENT`): a share of the results it would
/// restore are run here instead, and their outputs compared with the result's, byte for byte.
/// Signing proves who stored a result; a spot check tests whether it is what the task builds —
/// the one defence against a trusted writer whose machine was compromised.
///
/// Which results are checked depends on the task's key alone (and on the seed): the same key
/// is checked on every machine and in every run, until the seed changes (a CI job can pass its
/// run's number to check other tasks each time).
package struct CacheSpotCheck: Sendable, Equatable {
  /// The share checked, in hundredths of a percent (0 to 10 000).
  package var basisPoints: Int
  /// Mixed into the pick: another seed, other tasks.
  package var seed: String

  package init(basisPoints: Int, seed: String = "") {
    self.basisPoints = min(max(basisPoints, 0), 10_000)
    self.seed = seed
  }

  /// `10`, `10%`, `0.5`, `100`: a share from 0 to 100 percent, to a hundredth of a percent.
  package init?(percent text: String, seed: String = "") {
    var number = Substring(text)
    if number.hasSuffix("%") { number = number.dropLast() }
    let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit), whole.count <= 3,
      let percent = Int(whole)
    else { return nil }
    var hundredths = 0
    if parts.count == 2 {
      let fraction = parts[1]
      guard !fraction.isEmpty, fraction.count <= 2, fraction.allSatisfy(\.isASCIIDigit) else { return nil }
      hundredths = Int(fraction)! * (fraction.count == 1 ? 10 : 1)
    }
    let points = percent * 100 + hundredths
    guard points <= 10_000 else { return nil }
    self.init(basisPoints: points, seed: seed)
  }

  /// Whether the result stored as `key`'s is checked: the first 8 bytes of
  /// SHA-256(seed NUL key hash), as a number, fall in the share.
  package func picks(_ key: ActionKey) -> Bool {
    picks(keyHash: key.digest.hash)
  }

  package func picks(keyHash: String) -> Bool {
    if basisPoints >= 10_000 { return true }
    if basisPoints <= 0 { return false }
    let digest = ContentHasher.sha256Hex(Array(seed.utf8) + [0] + Array(keyHash.utf8))
    let value = UInt64(digest.prefix(16), radix: 16) ?? 0
    // value / 2^64 < basisPoints / 10 000, without overflow.
    return value.multipliedFullWidth(by: 10_000).high < UInt64(basisPoints)
  }

  /// Where a result found in the remote cache and the run here first differ.
  package struct Difference: Sendable, Equatable, CustomStringConvertible {
    /// The output file, when a file differs (in both, or in one of the two only).
    package var path: String?
    package var description: String
  }

  /// The first difference between the outputs of a result found (`found`) and the local
  /// entry of the run here (`here`): output files (by path, in byte order: content, then the
  /// executable bit), then output values, then an image task's image. The log is not compared:
  /// it often holds times and paths. nil when they are the same.
  package static func firstDifference(found: CacheEntry, here: CacheEntry) -> Difference? {
    var foundFiles: [String: CacheEntry.File] = [:]
    for file in found.files { foundFiles[file.path] = file }
    var hereFiles: [String: CacheEntry.File] = [:]
    for file in here.files { hereFiles[file.path] = file }
    let paths = Set(foundFiles.keys).union(hereFiles.keys).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    for path in paths {
      switch (foundFiles[path], hereFiles[path]) {
      case (let cached?, let made?):
        if cached.hash != made.hash || cached.size != made.size {
          return Difference(path: path, description: "'\(path)' differs")
        }
        if cached.mode & 0o100 != made.mode & 0o100 {
          return Difference(
            path: path, description: "'\(path)' is \(made.mode & 0o100 != 0 ? "" : "not ")executable here")
        }
      case (_?, nil):
        return Difference(path: path, description: "'\(path)' is in the cached result, not written here")
      case (nil, _?):
        return Difference(path: path, description: "'\(path)' is written here, not in the cached result")
      case (nil, nil): continue
      }
    }
    let foundValues = Dictionary(found.values.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    let hereValues = Dictionary(here.values.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    for key in Set(foundValues.keys).union(hereValues.keys).sorted() where foundValues[key] != hereValues[key] {
      return Difference(path: nil, description: "the output value '\(key)' differs")
    }
    if found.image != here.image { return Difference(path: nil, description: "the image differs") }
    return nil
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
