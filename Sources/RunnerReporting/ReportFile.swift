import Glibc
import RunnerBasics
import RunnerModel

/// Writes a report file whole or not at all: into a temporary file beside it, then renamed
/// over it, so a reader never sees half a report and a failed write leaves the old one.
package enum ReportFile {
  ///
  /// Only a regular file (or a new one) is replaced that way. A symlink is written through:
  /// its target is replaced and the link stays. `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` and
  /// `/proc/self/fd/N` (the `/dev/fd/63` of `--junit >(cat)`) are written to descriptor N as
  /// it is (appending where runner's own output goes). A FIFO, a device or a socket is opened
  /// and written directly: its reader gets the report, and a device node is never replaced.
  ///
  /// - Throws: a message naming the file and the reason.
  package static func write(_ text: String, to path: String) throws(TaskFileError) {
    if let descriptor = descriptor(named: path) {
      Terminal.releaseHeld()
      let failure = writeAll(text, to: descriptor)
      if failure != 0 { throw .unwritable(path, reason: FileReader.describe(failure)) }
      return
    }
    if isStream(path) { return try writeDirectly(text, to: path) }
    guard let path = target(of: path) else {
      throw .unwritable(path, reason: FileReader.describe(ELOOP))
    }
    // Hidden and marked as runner's other temporaries (no pattern takes one; a later run
    // removes a killed runner's).
    let temporary = FilePath.temporaryName(for: path)
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw .unwritable(path, reason: FileReader.describe(errno)) }
    var failure = writeAll(text, to: fd)
    if failure == 0, fsync(fd) != 0 { failure = errno }
    if close(fd) != 0, failure == 0 { failure = errno }
    if failure == 0, rename(temporary, path) != 0 { failure = errno }
    if failure != 0 {
      unlink(temporary)
      throw .unwritable(path, reason: FileReader.describe(failure))
    }
  }

  /// The descriptor a path names: `/dev/stdout` 1, `/dev/stderr` 2, `/dev/fd/N` and
  /// `/proc/self/fd/N` N.
  static func descriptor(named path: String) -> Int32? {
    if path == "/dev/stdout" { return 1 }
    if path == "/dev/stderr" { return 2 }
    for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
      return Int32(path.dropFirst(prefix.count))
    }
    return nil
  }

  /// Whether `path` is something to write into rather than replace.
  static func isStream(_ path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0 else { return false }
    let type = info.st_mode & S_IFMT
    return type != S_IFREG && type != S_IFDIR
  }

  /// The file a chain of symlinks at `path` ends at (which may not exist yet); `path` itself
  /// when it is no symlink; nil for a loop (40 links, as the kernel counts).
  static func target(of path: String) -> String? {
    var current = path
    for _ in 0..<40 {
      var info = stat()
      guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let length = readlink(current, &buffer, buffer.count - 1)
      guard length > 0 else { return current }
      let link = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      current = FilePath.resolve(link, in: FilePath.parent(of: current))
    }
    return nil
  }

  static func writeDirectly(_ text: String, to path: String) throws(TaskFileError) {
    let fd = open(path, O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { throw .unwritable(path, reason: FileReader.describe(errno)) }
    var failure = writeAll(text, to: fd)
    if close(fd) != 0, failure == 0, errno != EINVAL { failure = errno }
    if failure != 0 { throw .unwritable(path, reason: FileReader.describe(failure)) }
  }

  /// Writes all of `text`; the errno of a failure, or 0.
  static func writeAll(_ text: String, to fd: Int32) -> Int32 {
    var failure: Int32 = 0
    var text = text
    text.withUTF8 { text in
      PrintMask.withMasked(text) { bytes in
        var offset = 0
        while offset < bytes.count {
          let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
          if written < 0 {
            if errno == EINTR { continue }
            failure = errno
            return
          }
          offset += written
        }
      }
    }
    return failure
  }

  /// Appends to a file (the step summary, which other steps append to as well).
  package static func append(_ text: String, to path: String) throws(TaskFileError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw .unwritable(path, reason: FileReader.describe(errno)) }
    Terminal.write(text, to: fd)
    close(fd)
  }
}
