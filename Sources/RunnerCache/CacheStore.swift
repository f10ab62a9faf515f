import Glibc
import RunnerBasics

/// The local content-addressed cache: one entry file per fingerprint under
/// `.runner/cache/<first two hex digits>/<fingerprint>`. An entry's modification time is its
/// last use, which least-recently-used eviction sorts by.
package struct CacheStore: Sendable {
  package static let defaultMaximumBytes: Int64 = 5 << 30

  let directory: String
  let maximumBytes: Int64
  /// Judges the age of a killed runner's temporary files.
  var clock: any RunClock = SystemClock()
  /// Decodes an entry's image for `peek`; without it, an entry with an image predicts nothing.
  var images: (any ImageDigesting)? = nil

  func path(for fingerprint: String) -> String {
    "\(directory)/\(fingerprint.prefix(2))/\(fingerprint)"
  }

  func contains(_ fingerprint: String) -> Bool {
    CacheFileSystem.status(path(for: fingerprint)) != nil
  }

  /// The entry for `fingerprint` (its head: files are copied out by `CacheFileSystem.restore`),
  /// nil if there is none; marks it used. An older runner's entry is removed as a miss.
  ///
  /// - Throws: `CacheError.corrupt` for an entry that fails its check; it is removed first.
  package func load(_ fingerprint: String) throws(CacheError) -> CacheEntry? {
    let path = path(for: fingerprint)
    guard CacheFileSystem.status(path) != nil else { return nil }
    do {
      guard let entry = try CacheEntry.read(path) else {
        unlink(path)
        return nil
      }
      try Self.check(entry, of: fingerprint)
      CacheFileSystem.touch(path)
      return entry
    } catch {
      unlink(path)
      throw error
    }
  }

  /// An entry is the one of its fingerprint, or damage.
  static func check(_ entry: CacheEntry, of fingerprint: String) throws(CacheError) {
    guard entry.key == fingerprint else {
      throw .corrupt(entry.path, reason: "it holds the outputs of another key (\(entry.key.prefix(12))…)")
    }
  }

  /// Removes an entry found damaged after it was loaded (a file's content failed its check).
  package func discard(_ fingerprint: String) {
    unlink(path(for: fingerprint))
  }

  /// Stores an entry; each file's content is streamed from `contents` (the path that holds
  /// `entry.files[i]`) and checked against the size recorded for it, and against its hash
  /// where the entry names one. A file without a hash gets the one of the bytes stored: the
  /// file is read once, to store and to hash it.
  ///
  /// - Returns: the entry's size in bytes, and its files with their hashes.
  @discardableResult
  package func store(_ entry: CacheEntry, contents: [String], for fingerprint: String) throws(CacheError)
    -> (size: Int64, files: [CacheEntry.File])
  {
    let path = path(for: fingerprint)
    try CacheFileSystem.makeDirectories(FilePath.parent(of: path))
    var entry = entry
    entry.key = fingerprint
    // Hashes are known once the contents are stored: the head is written with stand-ins of
    // the same length first, and again over them at the end.
    let known = entry.files.map(\.hash)
    for index in entry.files.indices where known[index].isEmpty {
      entry.files[index].hash = String(repeating: "0", count: 64)
    }
    let head = entry.encodedHead()
    var size = Int64(head.count)
    try CacheFileSystem.writeAtomically(path, head) { target throws(CacheError) in
      var files = entry.files
      for index in files.indices { files[index].hash = known[index] }
      let hashes = try CacheFileSystem.storeContents(
        files, from: contents, to: target, targetPath: path, headSize: Int64(head.count))
      for index in entry.files.indices { entry.files[index].hash = hashes[index] }
      size = Int64(lseek(target, 0, SEEK_END))
      guard known.contains(where: \.isEmpty) else { return }
      let final = entry.encodedHead()
      guard final.count == head.count,
        final.withUnsafeBytes({ pwrite(target, $0.baseAddress, $0.count, 0) }) == final.count
      else { throw .io(path, reason: "cannot write the entry's head") }
    }
    return (size, entry.files)
  }

  /// `store`, for an entry whose files' hashes are all known.
  ///
  /// - Returns: the entry's size in bytes.
  @discardableResult
  package func save(_ entry: CacheEntry, contents: [String], for fingerprint: String) throws(CacheError) -> Int64 {
    try store(entry, contents: contents, for: fingerprint).size
  }

  /// `usage` in the cache directory: the cache's size as the last scan found it, plus what
  /// runs stored since. Scanning every entry (10 000 `stat`s for 10 000 tasks) after each run
  /// that stored one was most of the time a one-task edit took to finish.
  var usagePath: String { directory + "/usage" }

  /// Bounds the cache after a run that stored `added` bytes: scans and evicts only when the
  /// recorded usage plus `added` may pass `maximumBytes` (or nothing is recorded yet).
  package func bound(added: Int64) {
    let recorded = (try? CacheFileSystem.read(usagePath)).flatMap { Int64(String(decoding: $0, as: UTF8.self)) }
    let usage: Int64
    if let recorded, recorded >= 0, case let (sum, overflow) = recorded.addingReportingOverflow(added), !overflow,
      sum <= maximumBytes
    {
      usage = sum
    } else {
      usage = evict().remaining
    }
    try? CacheFileSystem.writeAtomically(usagePath, Array(String(usage).utf8), durable: false)
  }

  /// Every entry with its last use and size, and the bytes of temporary files being written
  /// (another runner's store in progress, or a killed one's less than 10 minutes old).
  func entries() -> (entries: [(path: String, used: Int64, size: Int64)], temporary: Int64) {
    var entries: [(path: String, used: Int64, size: Int64)] = []
    var temporary: Int64 = 0
    for bucket in CacheFileSystem.list(directory) where bucket.name.count == 2 {
      let bucketPath = directory + "/" + bucket.name
      // What a killed runner left half-written goes now; what a live one writes is not an entry.
      CacheFileSystem.removeOrphanedTemporaries(in: bucketPath, clock: clock)
      for entry in CacheFileSystem.list(bucketPath) {
        let path = bucketPath + "/" + entry.name
        guard let status = CacheFileSystem.status(path) else { continue }
        if entry.name.contains(FilePath.temporaryMark) {
          temporary += status.stamp.size
        } else {
          entries.append((path, status.stamp.modified, status.stamp.size))
        }
      }
    }
    return (entries, temporary)
  }

  /// Removes least-recently-used entries until the cache holds at most `maximumBytes`,
  /// temporary files counted (they cannot be removed while they are written).
  ///
  /// - Returns: how many entries were removed, and the bytes of those that remain.
  @discardableResult
  func evict() -> (removed: Int, remaining: Int64) {
    let (entries, temporary) = entries()
    var total = entries.reduce(temporary) { $0 + $1.size }
    guard total > maximumBytes else { return (0, total) }
    var removed = 0
    for entry in entries.sorted(by: { $0.used < $1.used }) where total > maximumBytes {
      unlink(entry.path)
      total -= entry.size
      removed += 1
    }
    return (removed, total)
  }

  /// `RUNNER_CACHE_MAX`: bytes, or a number with K, M, G or T (powers of 1024; `B`/`iB` allowed).
  package static func parseSize(_ text: String) -> Int64? {
    var digits = Substring(text.uppercased())
    if digits.hasSuffix("IB") {
      digits = digits.dropLast(2)
    } else if digits.hasSuffix("B") {
      digits = digits.dropLast()
    }
    var shift: Int64 = 0
    switch digits.last {
    case "K": shift = 10
    case "M": shift = 20
    case "G": shift = 30
    case "T": shift = 40
    default: break
    }
    if shift > 0 { digits = digits.dropLast() }
    guard let number = Double(digits), number >= 0, number.isFinite else { return nil }
    let bytes = number * Double(Int64(1) << shift)
    return bytes < 9e18 ? Int64(bytes) : nil
  }
}

extension CacheStore {
  /// What an entry would hand on if restored (checked, but not marked used): for predictions.
  func peek(_ fingerprint: String) throws(CacheError) -> (digest: String, values: [String: String])? {
    let path = path(for: fingerprint)
    guard CacheFileSystem.status(path) != nil, let entry = try CacheEntry.read(path) else { return nil }
    try Self.check(entry, of: fingerprint)
    let files = entry.files.map { FileRecord(path: $0.path, content: ContentDigest(hash: $0.hash, size: $0.size)) }
    let values = Dictionary(entry.values, uniquingKeysWith: { $1 })
    var pixels: String?
    if let png = entry.image {
      guard let images else { return nil }
      guard let digest = images.pixelDigest(ofPNG: png, name: path) else {
        throw .corrupt(path, reason: "the image does not decode")
      }
      pixels = digest
    }
    return (Fingerprint.outputDigest(values: values, files: files, pixels: pixels), values)
  }
}
