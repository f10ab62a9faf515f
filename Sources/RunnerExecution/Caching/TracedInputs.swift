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

  /// What a run was seen to do with the project's paths.
  package struct Found: Sendable {
    /// What it needed, as paths from the task's directory, sorted: each file it read, ran or
    /// looked at; each path it looked up or opened that is not there, or removed (no content:
    /// anything there later changes the key); each directory it looked at (that it is one)
    /// or listed (with a trailing `/`: its entries' names).
    package var inputs: [String] = []
    /// The paths it wrote, removed or made itself, and the directories they are in (whose
    /// listings it changed), from the task's directory.
    package var touched = Set<String>()
    package var touchedDirectories = Set<String>()
  }

  /// What the task's processes did, seen in `log`. A path the task wrote or made before
  /// reading it, or only looked at before writing it (`cp` checks its target), is its output,
  /// not its input; one it read and then rewrote (a lock file) is both.
  package func inputs(of log: ProcessTrace.Log, directory: String) -> Found {
    var first: [String: ProcessTrace.Kind] = [:]
    var written = Set<String>()
    var removed = Set<String>()
    var readBeforeWrite = Set<String>()
    var order: [String] = []
    var canonicalParents: [String: String] = [:]
    for access in log.accesses {
      var path = Self.normalized(access.path)
      if !path.hasPrefix(root + "/"), path != root {
        // Named through a link to the project (`$PWD` of a shell started in a linked
        // directory): its directory's real path.
        guard let name = path.split(separator: "/").last else { continue }
        let parent = FilePath.parent(of: path)
        let real =
          canonicalParents[parent]
          ?? {
            let real = FilePath.canonical(parent)
            canonicalParents[parent] = real
            return real
          }()
        path = (real == "/" ? "" : real) + "/" + name
      }
      guard inProject(path) || path == root else { continue }
      let key = access.kind == .listed ? path + "/" : path
      if first[key] == nil {
        first[key] = access.kind
        order.append(key)
      }
      switch access.kind {
      case .read, .executed: if !written.contains(path) { readBeforeWrite.insert(path) }
      case .written, .madeDirectory: written.insert(path)
      case .removed:
        written.insert(path)
        removed.insert(path)
      case .probed, .listed: break
      }
    }
    var inputs: [String] = []
    for key in order {
      let kind = first[key]!
      switch kind {
      case .written, .madeDirectory:
        continue
      case .removed, .probed, .read, .executed:
        if removed.contains(key), CacheFileSystem.status(key, follow: false) == nil {
          // Gone at the end (`rm -rf build`): its absence is what the task needs.
          inputs.append(key)
          continue
        }
        if kind == .removed { continue }
        // Looked at, then written, never read: its output.
        if kind == .probed, written.contains(key), !readBeforeWrite.contains(key) { continue }
        inputs.append(key)
      case .listed:
        if CacheFileSystem.status(String(key.dropLast()), follow: true)?.isDirectory == true { inputs.append(key) }
      }
    }
    let canonicalDirectory = FilePath.canonical(directory)
    let relative = { (path: String) in Self.relative(path, to: canonicalDirectory) }
    var found = Found(inputs: inputs.map(relative).sorted())
    for path in written {
      found.touched.insert(relative(path))
      found.touchedDirectories.insert(relative(path == root ? root : FilePath.parent(of: path)))
    }
    return found
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
