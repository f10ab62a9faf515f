import Glibc

/// Paths as the file system knows them.
package enum FilePath {
  /// `path` with symlinks, `.` and `..` resolved (`realpath`); as written when it does not exist.
  package static func canonical(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
