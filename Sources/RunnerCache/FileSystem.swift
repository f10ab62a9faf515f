/// The file system as the incremental engine sees it: what a decision rests on (`stat`,
/// listings, content hashes), the mark `Disk` touches for its clock, and the state log the
/// store reads and writes. `LocalFileSystem` is the machine's; tests run the engine's
/// decisions and its state on one in memory, as ninja's tests run on its `VirtualFileSystem`
/// behind `DiskInterface`.
package protocol FileSystem: Sendable {
  /// `stat` (`follow`) or `lstat`; nil when nothing is there.
  func status(_ path: String, follow: Bool) -> CacheFileSystem.Status?
  /// A directory's entries (without `.` and `..`), with their `d_type`; empty when unreadable.
  func list(_ path: String) -> [(name: String, type: UInt8)]
  /// The digest of a regular file's content; nil for anything else.
  func hashContent(_ path: String) -> ContentDigest?
  /// Sets `path`'s times to the file system's now, making it if missing, and returns its new
  /// stamp; nil when it cannot be written, or when a touch may be stamped by another clock
  /// than a write (a network file system).
  func touch(_ path: String) -> CacheFileSystem.Stamp?
  /// A regular file's bytes.
  func read(_ path: String) throws(CacheError) -> [UInt8]
  /// Adds `bytes` at the end of an existing regular file (no fsync: the state's segments
  /// carry their own checksums, so an append cut short reads as the end of the file).
  func append(_ path: String, _ bytes: [UInt8]) throws(CacheError)
  /// Puts `bytes` at `path` whole or not at all: a reader sees the old file or the new one.
  func replace(_ path: String, with bytes: [UInt8]) throws(CacheError)
  /// `mkdir -p`.
  func makeDirectories(_ path: String) throws(CacheError)
  /// Removes a file, if there is one.
  func removeFile(_ path: String)
}

/// The machine's file system, on plain system calls.
package struct LocalFileSystem: FileSystem {
  package init() {}

  package func status(_ path: String, follow: Bool) -> CacheFileSystem.Status? {
    CacheFileSystem.status(path, follow: follow)
  }

  package func list(_ path: String) -> [(name: String, type: UInt8)] { CacheFileSystem.list(path) }

  package func hashContent(_ path: String) -> ContentDigest? {
    CacheFileSystem.hashContent(path).map { ContentDigest(hash: $0.hash, size: $0.size) }
  }

  package func touch(_ path: String) -> CacheFileSystem.Stamp? { CacheFileSystem.touchMark(path) }

  package func read(_ path: String) throws(CacheError) -> [UInt8] { try CacheFileSystem.read(path) }

  package func append(_ path: String, _ bytes: [UInt8]) throws(CacheError) {
    try CacheFileSystem.append(path, bytes)
  }

  package func replace(_ path: String, with bytes: [UInt8]) throws(CacheError) {
    try CacheFileSystem.writeAtomically(path, bytes)
  }

  package func makeDirectories(_ path: String) throws(CacheError) { try CacheFileSystem.makeDirectories(path) }

  package func removeFile(_ path: String) { CacheFileSystem.remove(path) }
}
