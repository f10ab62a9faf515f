import Glibc

/// Paths as the file system knows them.
package enum FilePath {
  /// `path` as seen from `directory`: itself when absolute, else joined to it (no `.` or `..`
  /// resolved). How runner joins a path written in a task file to the directory it is in.
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
