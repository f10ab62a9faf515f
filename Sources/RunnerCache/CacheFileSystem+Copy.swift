import Glibc

/// Streamed copies for the cache: a file goes into an entry and back out through one 1 MiB
/// buffer, hashed on the way, whatever its size.
extension CacheFileSystem {
  static let copyChunk = 1 << 20

  /// Copies `count` bytes of `source`, from `offset`, to the end of `target` (nil: only
  /// reads them), and returns their SHA-256 in hex.
  ///
  /// - Throws: `.io` naming `sourcePath` if it ends before `count` bytes (or has more after
  ///   them, when `exact`: a file that changed while it was copied), naming `targetPath` if
  ///   the write fails.
  static func copy(
    from source: Int32, sourcePath: String, offset: Int64, count: Int64, exact: Bool, to target: Int32?,
    targetPath: String
  ) throws(CacheError) -> String {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: copyChunk, alignment: 16)
    defer { buffer.deallocate() }
    var hasher = ContentHasher()
    var done: Int64 = 0
    while done < count {
      let want = Int(min(Int64(copyChunk), count - done))
      let got = pread(source, buffer.baseAddress, want, off_t(offset + done))
      if got < 0, errno == EINTR { continue }
      guard got >= 0 else { throw .io(sourcePath, reason: describe(errno)) }
      guard got > 0 else {
        // An entry that ends early is damage; an output that does is a file that changed.
        throw exact
          ? .io(sourcePath, reason: "it changed while it was copied (shorter than its size)")
          : .corrupt(sourcePath, reason: "it ends inside '\(targetPath)'")
      }
      let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<got])
      hasher.stream(chunk)
      if let target, let failure = writeAll(chunk, to: target) { throw .io(targetPath, reason: describe(failure)) }
      done += Int64(got)
    }
    if exact, pread(source, buffer.baseAddress, 1, off_t(offset + done)) > 0 {
      throw .io(sourcePath, reason: "it changed while it was copied (longer than its size)")
    }
    return hasher.finalize()
  }

  /// Writes all of `bytes`, retrying short writes and interruptions; the `errno` of a failure.
  static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
    guard let base = bytes.baseAddress else { return nil }
    var written = 0
    while written < bytes.count {
      let count = write(descriptor, base + written, bytes.count - written)
      if count < 0 {
        if errno == EINTR { continue }
        return errno
      }
      written += count
    }
    return nil
  }

  /// Writes an output file back from a cache entry, atomically, checking its content against
  /// the hash the entry recorded before it replaces anything. A big file's blocks are shared
  /// with the entry where the file system can (then only read, for the check).
  ///
  /// - Throws: `.corrupt` naming the entry if the content does not match.
  package static func restore(_ file: CacheEntry.File, from entryPath: String, to path: String) throws(CacheError) {
    let (entry, info) = try openRegular(entryPath).get()
    defer { close(entry) }
    try writeAtomically(path, [], mode: mode_t(file.mode & 0o7777)) { target throws(CacheError) in
      var hash: String?
      if file.size >= cloneMinimum, file.offset % cloneAlignment == 0,
        clone(
          from: entry, sourceOffset: file.offset,
          length: file.offset + rounded(file.size) <= Int64(info.st_size) ? rounded(file.size) : 0, to: target,
          targetOffset: 0)
      {
        // The clone took whole blocks: what follows the file in the entry goes. If it cannot
        // (shortening a shared block needs a new one), the file is copied over from the start.
        if ftruncate(target, off_t(file.size)) == 0 {
          hash = try copy(
            from: target, sourcePath: path, offset: 0, count: file.size, exact: false, to: nil, targetPath: path)
        } else if ftruncate(target, 0) != 0 || lseek(target, 0, SEEK_SET) != 0 {
          throw .io(path, reason: describe(errno))
        }
      }
      if hash == nil {
        hash = try copy(
          from: entry, sourcePath: entryPath, offset: file.offset, count: file.size, exact: false, to: target,
          targetPath: path)
      }
      guard hash == file.hash else { throw .corrupt(entryPath, reason: "'\(file.path)' does not match its checksum") }
    }
  }

  /// Appends each file's content to an entry being written, whose head (`headSize` bytes) is
  /// written already, checking each against the size recorded for it and, where the entry
  /// names one, its hash. Each file is read once: copied and hashed in one pass, or, big and
  /// on a file system that can, its blocks shared and then hashed from the entry.
  ///
  /// - Returns: each file's hash, as stored.
  static func storeContents(
    _ files: [CacheEntry.File], from sources: [String], to target: Int32, targetPath: String, headSize: Int64
  ) throws(CacheError) -> [String] {
    var end = headSize
    var hashes: [String] = []
    for (file, source) in zip(files, sources) {
      let (descriptor, _) = try openRegular(source).get()
      defer { close(descriptor) }
      let offset = contentOffset(after: end, size: file.size)
      if offset > end {
        guard ftruncate(target, off_t(offset)) == 0, lseek(target, off_t(offset), SEEK_SET) == off_t(offset) else {
          throw .io(targetPath, reason: describe(errno))
        }
      }
      var hash: String
      var info = stat()
      if file.size >= cloneMinimum,
        clone(from: descriptor, sourceOffset: 0, length: 0, to: target, targetOffset: offset)
      {
        guard fstat(descriptor, &info) == 0, Int64(info.st_size) == file.size else {
          throw .io(source, reason: "it changed while it was copied")
        }
        hash = try copy(
          from: target, sourcePath: targetPath, offset: offset, count: file.size, exact: false, to: nil,
          targetPath: targetPath)
        guard lseek(target, 0, SEEK_END) == off_t(offset + file.size) else {
          throw .io(targetPath, reason: "the shared blocks end elsewhere than the file")
        }
      } else {
        hash = try copy(
          from: descriptor, sourcePath: source, offset: 0, count: file.size, exact: true, to: target,
          targetPath: targetPath)
      }
      guard file.hash.isEmpty || hash == file.hash else { throw .io(source, reason: "it changed while it was copied") }
      hashes.append(hash)
      end = offset + file.size
    }
    return hashes
  }
}
