import RunnerBasics
import RunnerCache
import RunnerProcess

/// The project's files in a task's trace (`ProcessTrace.Log`): what `sources: auto` keys a
/// task by, and what `--check-inputs` compares with its patterns.
///
/// The project is the task file's directory, `.runner` and `.git` aside: a toolchain under
/// `/usr`, or a cache in `$HOME`, is not the task's input (name a tool in `key_env` or
/// `sources` to key by it).
package struct TracedInputs: Sendable {
  /// The project's directory, links resolved (as traced paths are).
  package let root: String

  package init(projectDirectory: String) {
    root = FilePath.canonical(projectDirectory)
  }

  /// What a run was seen to need, as paths from the task's `directory`, sorted: each file it
  /// read, ran or looked at; each path it looked up or opened that is not there (with no
  /// content: one appearing there later changes the key); each directory it listed, with a
  /// trailing `/` (its entries' names are content). What the task itself wrote, removed or
  /// made is its output, not its input.
  package func inputs(of log: ProcessTrace.Log, directory: String) -> [String] {
    let own = Set(
      log.accesses.lazy.filter { [.written, .removed, .madeDirectory].contains($0.kind) }.map {
        Self.normalized($0.path)
      })
    var found = Set<String>()
    for access in log.accesses {
      let path = Self.normalized(access.path)
      guard inProject(path) || path == root, !own.contains(path) else { continue }
      let status = CacheFileSystem.status(path, follow: true)
      switch access.kind {
      case .read, .executed, .probed:
        if status == nil || status?.isRegular == true { found.insert(path) }
      case .listed:
        if status?.isDirectory == true { found.insert(path + "/") }
      case .written, .removed, .madeDirectory:
        break
      }
    }
    let canonicalDirectory = FilePath.canonical(directory)
    return found.map { Self.relative($0, to: canonicalDirectory) }.sorted()
  }

  /// Whether `path` (normalized) is in the project.
  package func inProject(_ path: String) -> Bool {
    guard path.hasPrefix(root + "/") else { return false }
    let relative = path.dropFirst(root.count + 1)
    return
      !(relative == ".runner" || relative == ".git" || relative.hasPrefix(".runner/")
      || relative.hasPrefix(".git/"))
  }

  /// `path` (absolute) without `.`, `..` and empty segments.
  package static func normalized(_ path: String) -> String {
    var segments: [Substring] = []
    for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
      switch segment {
      case ".": continue
      case "..": _ = segments.popLast()
      default: segments.append(segment)
      }
    }
    return "/" + segments.joined(separator: "/")
  }

  /// `path` (absolute, normalized; a trailing `/` kept) from `directory`: below it as is,
  /// elsewhere through `..`; `./` for the directory itself listed.
  package static func relative(_ path: String, to directory: String) -> String {
    let listed = path.hasSuffix("/") && path != "/"
    let plain = listed ? String(path.dropLast()) : path
    let suffix = listed ? "/" : ""
    if plain == directory { return "." + suffix }
    if plain.hasPrefix(directory + "/") { return String(plain.dropFirst(directory.count + 1)) + suffix }
    let from = directory.split(separator: "/")
    let to = plain.split(separator: "/")
    let common = zip(from, to).prefix { $0 == $1 }.count
    return (Array(repeating: "..", count: from.count - common) + to.dropFirst(common).map(String.init))
      .joined(separator: "/") + suffix
  }
}
