#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whole-file reads and atomic writes on top of POSIX calls.
enum FileIO {
  static func errnoText(_ code: Int32 = errno) -> String {
    String(cString: strerror(code)).lowercased()
  }

  static func readAll(path: String) throws(ImagingError) -> [UInt8] {
    // Without blocking: opening a FIFO waits for a writer for ever (and ignores Ctrl-C).
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    guard fd >= 0 else { throw .unreadable(path: path, reason: errnoText()) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: errnoText()) }
    switch info.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw .unreadable(path: path, reason: "it is a directory")
    default: throw .unreadable(path: path, reason: "it is not a regular file (a FIFO, a device or a socket)")
    }
    // Read straight into the array's storage: a 19 MB JPEG is then neither copied from a
    // chunk buffer nor read in 300 calls. One spare byte lets the end show as a read of 0;
    // a file that grows meanwhile is read to its end.
    var result = [UInt8]()
    var capacity = Int(info.st_size) + 1
    var errorCode: Int32 = 0
    var atEnd = false
    while !atEnd {
      let previous = result
      result = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
        count = previous.count
        _ = buffer.initialize(from: previous)
        while count < capacity {
          let got = read(fd, buffer.baseAddress! + count, capacity - count)
          if got < 0 && errno == EINTR { continue }
          if got < 0 { errorCode = errno }
          if got <= 0 {
            atEnd = true
            return
          }
          count += got
        }
      }
      capacity *= 2
    }
    if errorCode != 0 { throw .unreadable(path: path, reason: errnoText(errorCode)) }
    return result
  }

  /// Writes to a temporary file beside `path`, fsyncs it, then renames it into place.
  static func writeAtomically(_ bytes: [UInt8], to path: String) throws(ImagingError) {
    let directory = parentDirectory(of: path)
    try makeDirectories(directory, for: path)
    // Hidden and marked as runner's other temporaries are (`.NAME.runner-tmp-PID-RANDOM`), so no
    // pattern takes it and a later run can tell a dead writer's from a live one's.
    let name = path.split(separator: "/").last.map(String.init) ?? "image"
    let template =
      (directory == "." && !path.hasPrefix("./") ? "" : directory + "/") + ".\(name).runner-tmp-\(getpid())-XXXXXX"
    var templateBytes = Array(template.utf8CString)
    let fd = templateBytes.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw .unwritable(path: path, reason: errnoText()) }
    let tempPath = String(decoding: templateBytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var closed = false
    do throws(ImagingError) {
      fchmod(fd, 0o644)
      var written = 0
      while written < bytes.count {
        let count = bytes.withUnsafeBytes { raw in
          write(fd, raw.baseAddress! + written, raw.count - written)
        }
        if count < 0 {
          if errno == EINTR { continue }
          throw .unwritable(path: path, reason: errnoText())
        }
        written += count
      }
      guard fsync(fd) == 0 else { throw .unwritable(path: path, reason: errnoText()) }
      closed = true
      guard close(fd) == 0 else { throw .unwritable(path: path, reason: errnoText()) }
      guard rename(tempPath, path) == 0 else { throw .unwritable(path: path, reason: errnoText()) }
    } catch {
      if !closed { close(fd) }
      unlink(tempPath)
      throw error
    }
  }

  static func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    if slash == path.startIndex { return "/" }
    return String(path[..<slash])
  }

  /// `mkdir -p`.
  static func makeDirectories(_ directory: String, for path: String) throws(ImagingError) {
    var info = stat()
    if stat(directory, &info) == 0 {
      if (info.st_mode & S_IFMT) != S_IFDIR {
        throw .unwritable(path: path, reason: "'\(directory)' is not a directory")
      }
      return
    }
    let parent = parentDirectory(of: directory)
    if parent != directory { try makeDirectories(parent, for: path) }
    if mkdir(directory, 0o777) != 0 && errno != EEXIST {
      throw .unwritable(path: path, reason: "cannot create directory '\(directory)': \(errnoText())")
    }
  }
}
