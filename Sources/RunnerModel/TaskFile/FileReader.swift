import Glibc

/// Reads a whole file with plain system calls (RunnerKit does not need Foundation).
package enum FileReader {
  /// The most a task file may hold; larger files are refused before reading.
  static let maximumSize = 256 << 20

  package static func read(_ path: String) throws(TaskFileError) -> [UInt8] {
    var info = stat()
    guard stat(path, &info) == 0 else {
      let code = errno
      if code == ENOENT || code == ENOTDIR { throw .fileNotFound(path) }
      throw .unreadable(path, reason: describe(code))
    }
    if (info.st_mode & S_IFMT) == S_IFDIR { throw .isDirectory(path) }
    if Int(info.st_size) > maximumSize {
      throw .unreadable(path, reason: "the file is larger than \(maximumSize >> 20) MiB")
    }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw .unreadable(path, reason: describe(errno)) }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(info.st_size))
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw .unreadable(path, reason: describe(errno))
      }
      if count == 0 { break }
      bytes.append(contentsOf: chunk[0..<count])
      if bytes.count > maximumSize {
        throw .unreadable(path, reason: "the file is larger than \(maximumSize >> 20) MiB")
      }
    }
    return bytes
  }

  package static func describe(_ code: Int32) -> String {
    String(cString: strerror(code)).lowercased()
  }
}
