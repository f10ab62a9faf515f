/// The file system as the incremental engine reads it: what a decision rests on (`stat`,
/// listings, content hashes) and the mark `Disk` touches for its clock. `LocalFileSystem` is
/// the machine's; tests run the engine's decisions on one in memory, as ninja's tests run on
/// its `VirtualFileSystem` behind `DiskInterface`.
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
}
