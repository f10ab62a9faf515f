import Glibc

/// Paths as the file system knows them.
package enum FilePath {
  /// `path` as seen from `directory`: itself when absolute, else joined to it. The one way
  /// runner joins a written path to a directory.
  package static func resolve(_ path: String, in directory: String) -> String {
    path.hasPrefix("/") ? path : directory + "/" + path
  }

  /// `path` with symlinks, `.` and `..` resolved (`realpath`); as written when it does not exist.
  package static func canonical(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
