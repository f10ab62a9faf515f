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
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw .unreadable(path: path, reason: errnoText()) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: errnoText()) }
    if (info.st_mode & S_IFMT) == S_IFDIR { throw .unreadable(path: path, reason: "it is a directory") }
    var result = [UInt8]()
    result.reserveCapacity(Int(info.st_size))
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw .unreadable(path: path, reason: errnoText())
      }
      if count == 0 { break }
      result.append(contentsOf: chunk[0..<count])
    }
    return result
  }

  /// Writes to a temporary file beside `path`, fsyncs it, then renames it into place.
  static func writeAtomically(_ bytes: [UInt8], to path: String) throws(ImagingError) {
    let directory = parentDirectory(of: path)
    try makeDirectories(directory, for: path)
    let template = (directory == "." && !path.hasPrefix("./") ? "" : directory + "/") + ".runner-tmp-XXXXXX"
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
