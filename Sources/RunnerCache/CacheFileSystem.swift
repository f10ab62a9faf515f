import Glibc
import RunnerBasics
import RunnerModel
import Synchronization

/// The few file-system calls caching needs, on plain system calls (no Foundation).
package enum CacheFileSystem {
  /// What `stat` says about a file, enough to notice a change without reading it.
  package struct Stamp: Sendable, Equatable {
    var device: Int64
    var inode: Int64
    package var size: Int64
    /// Modification time, nanoseconds since the epoch.
    package var modified: Int64
    /// Status change time, nanoseconds since the epoch.
    package var changed: Int64

    package init(device: Int64, inode: Int64, size: Int64, modified: Int64, changed: Int64) {
      self.device = device
      self.inode = inode
      self.size = size
      self.modified = modified
      self.changed = changed
    }

    /// Whether the file at `path` still has this stamp: the one check by which a recorded file
    /// is trusted unchanged (the no-op record, the records checked ahead, source walks).
    package func holds(at path: String) -> Bool {
      CacheFileSystem.status(path)?.stamp == self
    }
  }

  package struct Status {
    package var stamp: Stamp
    package var mode: UInt32

    package init(stamp: Stamp, mode: UInt32) {
      self.stamp = stamp
      self.mode = mode
    }
    package var isDirectory: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFDIR) }
    package var isRegular: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFREG) }
    package var isSymlink: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFLNK) }
  }

  package static func status(_ path: String, follow: Bool = true) -> Status? {
    var info = stat()
    guard (follow ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
    return Status(stamp: stamp(of: info), mode: UInt32(info.st_mode))
  }

  static func describe(_ code: Int32) -> String { String(cString: strerror(code)).lowercased() }

  /// Opens a regular file for reading; anything else (a FIFO, a device, a socket) is refused
  /// without blocking: opening a FIFO waits for a writer for ever, and `/dev/zero` never ends.
  ///
  /// - Returns: the descriptor and its status, or why not.
  static func openRegular(_ path: String) -> Result<(Int32, stat), CacheError> {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    guard descriptor >= 0 else { return .failure(.io(path, reason: describe(errno))) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      close(descriptor)
      return .failure(.io(path, reason: "not a regular file (\(Self.kind(of: info.st_mode)))"))
    }
    return .success((descriptor, info))
  }

  static func kind(of mode: mode_t) -> String { FileReader.kind(of: mode) }

  /// The whole content of a regular file.
  package static func read(_ path: String) throws(CacheError) -> [UInt8] {
    let (descriptor, info) = try openRegular(path).get()
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: max(0, Int(info.st_size)))
    var filled = 0
    while true {
      if filled == bytes.count { bytes.append(contentsOf: repeatElement(0, count: 1 << 16)) }
      let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
      if count < 0 {
        if errno == EINTR { continue }
        throw .io(path, reason: describe(errno))
      }
      if count == 0 { break }
      filled += count
    }
    bytes.removeLast(bytes.count - filled)
    return bytes
  }

  /// The last `count` bytes of a regular file (all of a smaller one), or nil.
  package static func readSuffix(_ path: String, count: Int) -> [UInt8]? {
    guard case .success(let (descriptor, info)) = openRegular(path) else { return nil }
    defer { close(descriptor) }
    let offset = max(0, Int(info.st_size) - count)
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size) - offset)
    var filled = 0
    while filled < bytes.count {
      let want = bytes.count - filled
      let got = bytes.withUnsafeMutableBytes {
        pread(descriptor, $0.baseAddress! + filled, want, off_t(offset + filled))
      }
      if got < 0, errno == EINTR { continue }
      if got < 0 { return nil }
      if got == 0 { break }
      filled += got
    }
    bytes.removeLast(bytes.count - filled)
    return bytes
  }

  /// SHA-256 of a file's content, streamed; nil if it cannot be read.
  package static func hashFile(_ path: String) -> String? {
    hashContent(path)?.hash
  }

  /// The SHA-256 (hex) of a regular file's content and the number of bytes hashed.
  package static func hashContent(_ path: String) -> (hash: String, size: Int64)? {
    guard case .success(let (descriptor, _)) = openRegular(path) else { return nil }
    defer { close(descriptor) }
    var hasher = ContentHasher()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    var size: Int64 = 0
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        return nil
      }
      if count == 0 { break }
      size += Int64(count)
      chunk.withUnsafeBytes { hasher.stream(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }
    return (hasher.finalize(), size)
  }

  /// Removes the temporary files in `directory` whose writer is no longer running (a runner
  /// killed mid-write) and which are older than `orphanAge` (a writer in another PID namespace
  /// reads as dead), and returns how many bytes they held.
  @discardableResult
  package static func removeOrphanedTemporaries(in directory: String, clock: any RunClock) -> Int64 {
    let now = clock.wallNanoseconds
    var freed: Int64 = 0
    for entry in list(directory) {
      // Every temporary name is hidden: the rest need no search.
      guard entry.name.utf8.first == UInt8(ascii: "."), let mark = entry.name.firstRange(of: FilePath.temporaryMark)
      else {
        continue
      }
      // A name without a pid is not ours to judge; a live writer's file stays.
      guard let pid = Int32(entry.name[mark.upperBound...].prefix { $0 != "-" }), pid > 0 else { continue }
      if kill(pid, 0) == 0 || errno != ESRCH { continue }
      let path = directory + "/" + entry.name
      guard let found = status(path, follow: false), now - found.stamp.modified > orphanAge else { continue }
      freed += found.stamp.size
      unlink(path)
    }
    return freed
  }

  /// How old a dead writer's temporary file must be before a later run removes it.
  package static let orphanAge: Int64 = 600 * 1_000_000_000

  /// Writes a file so that a reader sees the old content or the new, never a mix: a
  /// temporary file in the same directory, fsync, rename, fsync of the directory.
  ///
  /// - Parameters:
  ///   - durable: false skips both fsyncs, for a file whose loss in a power cut costs only time
  ///     (the no-op record, the cache's usage): a reader still sees old or new, and a file cut
  ///     short by the crash fails its own check.
  ///   - then: writes more after `bytes` (streamed content); what it throws removes the temporary.
  package static func writeAtomically(
    _ path: String, _ bytes: [UInt8], mode: mode_t = 0o644, durable: Bool = true,
    then: (Int32) throws(CacheError) -> Void = { _ in }
  ) throws(CacheError) {
    let temporary = FilePath.temporaryName(for: path)
    let descriptor = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard descriptor >= 0 else { throw .io(temporary, reason: describe(errno)) }
    if let failure = writeAll(bytes, to: descriptor) {
      close(descriptor)
      unlink(temporary)
      throw .io(path, reason: describe(failure))
    }
    do {
      try then(descriptor)
    } catch {
      close(descriptor)
      unlink(temporary)
      throw error
    }
    fchmod(descriptor, mode)
    let synced = !durable || fsync(descriptor) == 0
    close(descriptor)
    guard synced, rename(temporary, path) == 0 else {
      let reason = describe(errno)
      unlink(temporary)
      throw .io(path, reason: reason)
    }
    if durable { syncDirectory(FilePath.parent(of: path)) }
  }

  /// Appends `bytes` to an existing file, without fsync: the state file's segments carry their
  /// own checksums, so an append cut short by a crash reads as the end of the file.
  package static func append(_ path: String, _ bytes: [UInt8]) throws(CacheError) {
    // Not blocking on a FIFO put in its place (opening one to write waits for a reader).
    let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    guard descriptor >= 0 else { throw .io(path, reason: describe(errno)) }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      throw .io(path, reason: "not a regular file (\(Self.kind(of: info.st_mode)))")
    }
    if let failure = writeAll(bytes, to: descriptor) { throw .io(path, reason: describe(failure)) }
  }

  /// Writes all of `bytes`; the `errno` of a write that failed, or nil.
  static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
    bytes.withUnsafeBytes { writeAll($0, to: descriptor) }
  }

  static func syncDirectory(_ path: String) {
    let descriptor = open(path.isEmpty ? "." : path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    fsync(descriptor)
    close(descriptor)
  }

  /// `mkdir -p`.
  package static func makeDirectories(_ path: String) throws(CacheError) {
    if let status = status(path), status.isDirectory { return }
    let up = FilePath.parent(of: path)
    if up != path, up != ".", up != "/" { try makeDirectories(up) }
    if mkdir(path, 0o755) != 0, errno != EEXIST { throw .io(path, reason: describe(errno)) }
  }

  /// A directory's entries (without `.` and `..`): name and `d_type`.
  static func list(_ path: String) -> [(name: String, type: UInt8)] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var entries: [(name: String, type: UInt8)] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { entries.append((name, entry.pointee.d_type)) }
    }
    return entries
  }

  /// Removes a file, if there is one.
  package static func remove(_ path: String) {
    unlink(path)
  }

  /// `rm -rf` without following symbolic links.
  package static func removeTree(_ path: String) {
    guard let status = status(path, follow: false) else { return }
    if status.isDirectory {
      for entry in list(path) { removeTree(path + "/" + entry.name) }
      rmdir(path)
    } else {
      unlink(path)
    }
  }

  /// Sets a file's modification time to now (the cache's last-use time).
  static func touch(_ path: String) {
    utimensat(AT_FDCWD, path, nil, 0)
  }

  /// Sets a regular file's times to now, making it if missing (never through a link, never
  /// blocking on a FIFO), and returns its new stamp; nil when it cannot be written, or when
  /// the file system is not one whose times come from this machine's clock
  /// (`localClockFileSystems`: on SMB, NFS or sshfs a touch can be stamped by another clock
  /// than a write).
  static func touchMark(_ path: String) -> Stamp? {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0o644)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
      fileSystemType(of: descriptor).map(localClockFileSystems.contains) == true,
      futimens(descriptor, nil) == 0, fstat(descriptor, &info) == 0
    else { return nil }
    return stamp(of: info)
  }

  /// The file systems whose times the local kernel's clock sets, for writes and touches alike.
  static let localClockFileSystems: Set<String> = [
    "ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "f2fs", "bcachefs", "zfs", "overlay",
  ]

  /// File system types by mount id, as `fileSystemType(of:)` found them.
  private static let mountTypes = Mutex<[Substring: String]>([:])

  /// The type of the file system an open file is on: its mount id (`/proc/self/fdinfo`) looked
  /// up in `/proc/self/mountinfo` (Glibc's module has no `fstatfs`; a device number would not
  /// do, as Btrfs gives each subvolume its own). nil when either cannot be read.
  static func fileSystemType(of descriptor: Int32) -> String? {
    guard let info = try? read("/proc/self/fdinfo/\(descriptor)"),
      let line = String(decoding: info, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("mnt_id:") })
    else { return nil }
    let id = line.dropFirst("mnt_id:".count).drop { $0 == " " || $0 == "\t" }
    if let known = mountTypes.withLock({ $0[id] }) { return known }
    guard let text = try? read("/proc/self/mountinfo") else { return nil }
    for mount in String(decoding: text, as: UTF8.self).split(separator: "\n") {
      // ID PARENT MAJOR:MINOR ROOT POINT OPTIONS [TAGS...] - TYPE SOURCE SUPER (spaces in a
      // path are escaped, so the lone "-" ends the tags).
      let fields = mount.split(separator: " ")
      guard fields.count > 7, fields[0] == id, let dash = fields[6...].firstIndex(of: "-"), dash + 1 < fields.count
      else { continue }
      let type = String(fields[dash + 1])
      mountTypes.withLock { $0[id] = type }
      return type
    }
    return nil
  }

  static func stamp(of info: stat) -> Stamp {
    Stamp(
      device: Int64(bitPattern: UInt64(info.st_dev)), inode: Int64(bitPattern: UInt64(info.st_ino)),
      size: Int64(info.st_size),
      modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
      changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
  }
}
