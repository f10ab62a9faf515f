import Glibc

/// Reads a whole file with plain system calls (RunnerKit does not need Foundation).
package enum FileReader {
  /// The most a task file may hold; larger files are refused before reading.
  static let maximumSize = 256 << 20

  /// - Parameter streams: whether a FIFO or a device is read too (the task file, which may be
  ///   `<(command)`). Any other file runner reads (a `.env`, `$RUNNER_OUTPUT`) must be a
  ///   regular file: one replaced by a FIFO with no writer would block for ever, silently.
  package static func read(_ path: String, streams: Bool = false) throws(TaskFileError) -> [UInt8] {
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
    // Not blocking on the open (a FIFO's waits for a writer); then the kind of what was opened,
    // which may not be what `stat` saw.
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | (streams ? 0 : O_NONBLOCK | O_NOCTTY))
    guard descriptor >= 0 else { throw .unreadable(path, reason: describe(errno)) }
    defer { close(descriptor) }
    guard streams || (fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG) else {
      throw .unreadable(path, reason: "not a regular file (\(kind(of: info.st_mode)))")
    }
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

  /// A regular file of at least `atLeast` bytes, opened for a reader that takes it a piece at
  /// a time; nil for anything else (smaller, not regular, missing: `read` says what).
  package static func openLarge(_ path: String, atLeast: Int) -> (descriptor: Int32, size: Int)? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    guard descriptor >= 0 else { return nil }
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) >= atLeast,
      Int(info.st_size) <= maximumSize
    else {
      close(descriptor)
      return nil
    }
    return (descriptor, Int(info.st_size))
  }

  /// What a file that is not a regular one is, in words.
  package static func kind(of mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFIFO: return "a FIFO"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFSOCK: return "a socket"
    case S_IFDIR: return "a directory"
    default: return "a special file"
    }
  }

  package static func describe(_ code: Int32) -> String {
    String(cString: strerror(code)).lowercased()
  }
}
