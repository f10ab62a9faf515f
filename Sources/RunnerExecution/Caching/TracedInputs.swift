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
  /// content: anything appearing there later changes the key); each directory it looked at
  /// (its entries' names are its content) or listed (with a trailing `/`). A path the task
  /// wrote, removed or made before reading it, or only looked at before writing it, is its
  /// output, not its input; `rewritten` are the inputs it also wrote (a lock file it updates).
  package func inputs(of log: ProcessTrace.Log, directory: String) -> (inputs: [String], rewritten: Set<String>) {
    var first: [String: ProcessTrace.Kind] = [:]
    var written = Set<String>()
    var order: [String] = []
    var canonicalParents: [String: String] = [:]
    for access in log.accesses {
      var path = Self.normalized(access.path)
      if !path.hasPrefix(root + "/"), path != root {
        // Named through a link to the project (`$PWD` of a shell started in a linked
        // directory): its directory's real path.
        let parent = FilePath.parent(of: path)
        let real =
          canonicalParents[parent]
          ?? {
            let real = FilePath.canonical(parent)
            canonicalParents[parent] = real
            return real
          }()
        path = (real == "/" ? "" : real) + "/" + path.split(separator: "/").last.map(String.init)!
      }
      guard inProject(path) || path == root else { continue }
      let key = access.kind == .listed ? path + "/" : path
      if first[key] == nil {
        first[key] = access.kind
        order.append(key)
      }
      if [.written, .removed, .madeDirectory].contains(access.kind) { written.insert(path) }
    }
    var found: [String] = []
    var rewritten = Set<String>()
    for key in order {
      switch first[key]! {
      case .written, .removed, .madeDirectory:
        continue
      case .listed:
        if CacheFileSystem.status(String(key.dropLast()), follow: true)?.isDirectory == true { found.append(key) }
      case .probed where written.contains(key):
        // Looked at, then written (`cp` checks its target first): its output.
        continue
      case .read, .executed, .probed:
        found.append(key)
        if written.contains(key) { rewritten.insert(key) }
      }
    }
    let canonicalDirectory = FilePath.canonical(directory)
    let relative = { (path: String) in Self.relative(path, to: canonicalDirectory) }
    return (found.map(relative).sorted(), Set(rewritten.map(relative)))
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
