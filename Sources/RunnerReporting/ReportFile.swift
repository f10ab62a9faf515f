import Glibc
import RunnerBasics
import RunnerCache
import RunnerModel

/// Writes a report file whole or not at all: into a temporary file beside it, then renamed
/// over it, so a reader never sees half a report and a failed write leaves the old one.
package enum ReportFile {
  /// - Throws: a message naming the file and the reason.
  package static func write(_ text: String, to path: String) throws(TaskFileError) {
    // Hidden and marked as runner's other temporaries (no pattern takes one; a later run
    // removes a killed runner's).
    let temporary = CacheFileSystem.temporaryName(for: path)
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw .unwritable(path, reason: FileReader.describe(errno)) }
    var failure: Int32 = 0
    var text = text
    text.withUTF8 { bytes in
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
    if failure == 0, fsync(fd) != 0 { failure = errno }
    if close(fd) != 0, failure == 0 { failure = errno }
    if failure == 0, rename(temporary, path) != 0 { failure = errno }
    if failure != 0 {
      unlink(temporary)
      throw .unwritable(path, reason: FileReader.describe(failure))
    }
  }

  /// Appends to a file (the step summary, which other steps append to as well).
  package static func append(_ text: String, to path: String) throws(TaskFileError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw .unwritable(path, reason: FileReader.describe(errno)) }
    Terminal.write(text, to: fd)
    close(fd)
  }
}
