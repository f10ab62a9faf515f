import Glibc

/// Paths as the file system knows them.
package enum FilePath {
  /// `path` as seen from `directory`: itself when absolute, else joined to it (no `.` or `..`
  /// resolved). How runner joins a path written in a task file to the directory it is in.
  package static func resolve(_ path: String, in directory: String) -> String {
    path.hasPrefix("/") ? path : directory + "/" + path
  }

  /// The directory `path` is in: `.` for a bare name, `/` for a name at the root.
  package static func parent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// What a temporary file beside `path` is called: hidden (no `*` or `**` of a project
  /// matches it), with a mark every walk passes over and the writer's pid, so a later run can
  /// remove what a killed runner left (`CacheFileSystem.removeOrphanedTemporaries`).
  package static func temporaryName(for path: String) -> String {
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { String(path[...$0]) } ?? ""
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    return "\(directory).\(name)\(temporaryMark)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
  }

  /// `path` with `.` and `..` segments and doubled slashes taken out, by its text alone (no
  /// file system: a `..` after a link is not what the kernel would follow).
  package static func lexical(_ path: String) -> String {
    var parts: [Substring] = []
    for part in path.split(separator: "/") {
      if part == "." { continue }
      if part == "..", !parts.isEmpty, parts.last != ".." {
        parts.removeLast()
        continue
      }
      parts.append(part)
    }
    return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
  }

  /// In the name of every temporary file runner writes (Imaging's too).
  package static let temporaryMark = ".runner-tmp-"

  /// `path` with symlinks, `.` and `..` resolved (`realpath`); as written when it does not exist.
  package static func canonical(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
