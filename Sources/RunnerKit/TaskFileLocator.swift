import Glibc
import RunnerBasics
import RunnerModel

/// Finds the task file when none is named: `tasks.yml`, then `tasks.yaml`, in the current
/// directory, then in each parent up to the root — as go-task and just walk up.
///
/// A file found in a parent is used only when it and its directory belong to the user or to
/// root: someone else's task file above a shared directory (`/tmp`, a CI workspace) must not
/// run. Unlike go-task, which stops its walk without a word when the owner changes, runner
/// names the file it did not use, why, and the `-f` that would use it.
package enum TaskFileLocator {
  package static let names = ["tasks.yml", "tasks.yaml"]

  package struct Problem: Error {
    package var text: String
  }

  /// The task file's path: `tasks.yml` in the current directory, else relative to it
  /// (`../../tasks.yml`), so messages stay short.
  package static func find() -> Result<String, Problem> {
    let start = FilePath.canonical(".")
    var directory = start
    var searched: [String] = []
    var depth = 0
    while true {
      searched.append(directory)
      for name in names {
        let path = directory == "/" ? "/" + name : directory + "/" + name
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
        let relative = String(repeating: "../", count: depth) + name
        if depth > 0, let refusal = refusal(path, directory: directory) { return .failure(Problem(text: refusal)) }
        return .success(relative)
      }
      guard directory != "/" else { break }
      directory = parent(of: directory)
      depth += 1
    }
    let list = searched.count > 4 ? searched.prefix(3) + ["…", searched.last!] : searched[...]
    return .failure(
      Problem(
        text: "no tasks.yml or tasks.yaml in '\(start)' or any directory above it (searched "
          + list.joined(separator: ", ") + "); name one with -f FILE, or write a starter file with --init"))
  }

  static func parent(of directory: String) -> String {
    guard let slash = directory.lastIndex(of: "/"), slash != directory.startIndex else { return "/" }
    return String(directory[..<slash])
  }

  /// Why a task file found in a parent directory is not used, or nil when it may be: it, what
  /// it links to, or its directory belongs to another user, or anyone may write it (a
  /// world-writable file, or directory without the sticky bit).
  static func refusal(_ path: String, directory: String) -> String? {
    let user = getuid()
    var file = stat()
    var folder = stat()
    var resolved = stat()
    guard lstat(path, &file) == 0, stat(directory, &folder) == 0, stat(path, &resolved) == 0 else {
      return "found '\(path)' but cannot check whose it is: \(FileReader.describe(errno)). To use it: runner -f "
        + quoted(path)
    }
    if resolved.st_mode & S_IWOTH != 0 || (folder.st_mode & S_IWOTH != 0 && folder.st_mode & S_ISVTX == 0) {
      let what = resolved.st_mode & S_IWOTH != 0 ? "the file" : "its directory"
      return "found '\(path)' but did not use it: anyone may write \(what), so it could be someone else's. "
        + "To use it: runner -f \(quoted(path))"
    }
    for (what, owner) in [
      ("the file", file.st_uid), ("the file it links to", resolved.st_uid), ("its directory", folder.st_uid),
    ]
    where owner != user && owner != 0 {
      let you = user == 0 ? "root" : "you (\(describe(user))) or root"
      return "found '\(path)' but did not use it: \(what) belongs to \(describe(owner)), not to \(you), "
        + "so it could be someone else's. To use it: runner -f \(quoted(path))"
    }
    return nil
  }

  /// `path` as a shell word.
  static func quoted(_ path: String) -> String {
    path.allSatisfy { $0.isLetter || $0.isNumber || "/._-+:@".contains($0) }
      ? path : "'" + path.replacing("'", with: "'\\''") + "'"
  }

  /// "alice (uid 1001)", or the number alone when the user has no name.
  static func describe(_ uid: uid_t) -> String {
    guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
    return "\(String(cString: name)) (uid \(uid))"
  }
}
