import Glibc
import RunnerBasics
import RunnerCache
import RunnerEvents
import RunnerModel
import RunnerProcess

/// `sandbox: strict`: the Landlock rules a task's processes run under, and what the task's
/// trace shows they were refused, or wrote beyond what the task declares.
///
/// The task may read anything outside the project (the siblings of the project's directory and
/// of each of its ancestors, and what lies beneath them), list the project's directories, read
/// its `sources` and its dependencies' outputs, and write its outputs (with the directory of
/// each: Landlock grants a new file's creation by its directory), its depfile, its private
/// directory (`TMPDIR` and `$RUNNER_OUTPUT`) and devices under `/dev`. The kernel refuses the
/// rest; the trace names it. A file the task wrote that the rules allow but its outputs do not
/// declare (a sibling of an output) is named too.
struct StrictSandbox {
  let sandbox: Sandbox
  /// The task's private directory, with `tmp` (its `TMPDIR`) inside.
  let directory: String
  /// The project's directory and the task's, links resolved.
  let root: String
  let base: String
  let outputs: [String]
  let depfile: String?
  /// What it may read of the project: its sources and its dependencies' outputs, links resolved.
  let readable: [String]

  init(context: OperationContext, directory: String) {
    let task = context.task
    root = FilePath.canonical(context.projectDirectory)
    let base = FilePath.canonical(context.workingDirectory)
    self.base = base
    self.directory = FilePath.canonical(directory)
    outputs = Fingerprint.outputPatterns(of: task)
    depfile = task.depfile.map { Self.resolved(TracedInputs.normalized(FilePath.resolve($0, in: base))) }
    var rules = Self.outside(root)
    rules.append(Sandbox.Rule("/dev", .device))
    rules.append(Sandbox.Rule(root, .list))
    var readable = Self.paths(Fingerprint.sourcePatterns(of: task), in: base)
    for dependency in context.dependencyOutputs {
      let directory = FilePath.canonical(dependency.workingDirectory)
      readable += Self.paths(dependency.patterns, in: directory)
    }
    self.readable = readable
    for path in readable { rules.append(Sandbox.Rule(path, .read)) }
    for pattern in outputs + (task.depfile.map { [$0] } ?? []) {
      for path in Self.writable(pattern, in: base) { rules.append(Sandbox.Rule(path, .write)) }
    }
    rules.append(Sandbox.Rule(directory, .write))
    sandbox = Sandbox(rules: rules)
  }

  /// Read rules for everything beside the path from `/` down to `root`.
  static func outside(_ root: String) -> [Sandbox.Rule] {
    var rules: [Sandbox.Rule] = []
    var directory = "/"
    for component in root.split(separator: "/").map(String.init) {
      for name in entries(of: directory) where name != component {
        let path = directory == "/" ? "/" + name : directory + "/" + name
        // A link is granted where it leads, by that place's own rule: one beside the project
        // (or an ancestor) that leads into it must not open it.
        if CacheFileSystem.status(path, follow: false)?.isSymlink == true { continue }
        rules.append(Sandbox.Rule(path, .read))
      }
      directory = directory == "/" ? "/" + component : directory + "/" + component
    }
    return rules
  }

  static func entries(of directory: String) -> [String] {
    guard let stream = opendir(directory) else { return [] }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if name != ".", name != ".." { names.append(name) }
    }
    return names
  }

  /// What `patterns` name in `base`: each file a pattern matches, and a plain path as it is
  /// (a directory, whatever is beneath it).
  static func paths(_ patterns: [String], in base: String) -> [String] {
    var found: [String] = []
    for pattern in patterns where !pattern.hasPrefix("!") {
      if isGlob(pattern) {
        found += SourceGlob.expand([pattern], in: base).map { FilePath.resolve($0, in: base) }
      } else {
        found.append(FilePath.resolve(pattern, in: base))
      }
    }
    return found.map { Self.resolved(TracedInputs.normalized($0)) }
  }

  /// `path` with links resolved, as far as it exists (the part after a missing directory as named).
  static func resolved(_ path: String) -> String {
    if CacheFileSystem.status(path, follow: false) != nil { return FilePath.canonical(path) }
    let parent = FilePath.parent(of: path)
    guard parent != path, parent != "/" else { return path }
    let name = path.split(separator: "/").last.map(String.init) ?? ""
    let resolvedParent = resolved(parent)
    return resolvedParent == "/" ? "/" + name : resolvedParent + "/" + name
  }

  /// What writing `pattern`'s files takes: the directory before its first pattern character,
  /// or a plain path and the directory it is made in (made now when missing, as ninja makes
  /// an output's directory).
  static func writable(_ pattern: String, in base: String) -> [String] {
    let path = TracedInputs.normalized(FilePath.resolve(pattern, in: base))
    if isGlob(pattern) {
      let fixed = path.split(separator: "/").prefix { !isGlob(String($0)) }
      return ["/" + fixed.joined(separator: "/")]
    }
    if pattern.hasSuffix("/") {
      try? CacheFileSystem.makeDirectories(path)
      return [path]
    }
    let parent = FilePath.parent(of: path)
    try? CacheFileSystem.makeDirectories(parent)
    return [path, parent]
  }

  static func isGlob(_ text: String) -> Bool { text.contains { "*?[{".contains($0) } }

  /// What the trace shows the sandbox refused, what it read of the project beyond its sources
  /// and its dependencies' outputs (the kernel grants an output's whole directory), and files
  /// written beyond the outputs, worded; empty when the task kept to what it declares. Paths are
  /// taken where they lead (a link into the project counts as the project).
  func findings(_ log: ProcessTrace.Log) -> [String] {
    var written = Set<String>()
    var found: [String] = []
    var seen = Set<String>()
    var resolvedPaths: [String: String] = [:]
    func note(_ text: String) { if seen.insert(text).inserted { found.append(text) } }
    for access in log.accesses {
      let named = TracedInputs.normalized(access.path)
      // Descriptors the task holds (its pipes) were checked when they were opened.
      if named.hasPrefix("/proc/") || named.hasPrefix("/dev/fd/") { continue }
      let path = resolvedPaths[named] ?? Self.resolved(named)
      resolvedPaths[named] = path
      if path == directory || path.hasPrefix(directory + "/") { continue }
      let exists = CacheFileSystem.status(path, follow: false) != nil
      switch access.kind {
      case .read, .executed:
        // An open that found nothing read nothing (a linker probing its search path).
        guard exists, !written.contains(path) else { continue }
        if inProject(path) {
          guard !mayRead(path) else { continue }
          note("refused reading \(shown(path)) (not among its sources or its dependencies' outputs)")
        } else if !sandbox.grants(path, writing: false) {
          note("refused reading \(shown(path)) (outside what it may read)")
        }
      case .written, .removed, .madeDirectory:
        let verb = access.kind == .removed ? "removing" : access.kind == .written ? "writing" : "making"
        guard sandbox.grants(path, writing: true) else {
          // A removal the kernel refused leaves the file; a write into a missing directory found nothing.
          if access.kind == .removed ? !exists : CacheFileSystem.status(FilePath.parent(of: path), follow: true) == nil
          {
            continue
          }
          note("refused \(verb) \(shown(path)) (not its outputs or its temporary directory)")
          continue
        }
        if access.kind == .written { written.insert(path) }
        guard inProject(path), path != depfile, !SourceGlob.covers(outputs, path: path, base: base) else { continue }
        if access.kind == .removed, !written.contains(path) {
          note("removed \(shown(path)), which its outputs do not declare")
        } else if access.kind == .written, CacheFileSystem.status(path, follow: false)?.isRegular == true {
          note("wrote \(shown(path)), which its outputs do not declare")
        }
      case .probed, .listed:
        continue
      }
    }
    return found
  }

  /// Whether the task may read `path` of the project: a source, a dependency's output, its own
  /// output or depfile.
  func mayRead(_ path: String) -> Bool {
    readable.contains { path == $0 || path.hasPrefix($0 + "/") } || path == depfile
      || SourceGlob.covers(outputs, path: path, base: base)
  }

  func inProject(_ path: String) -> Bool { path == root || path.hasPrefix(root + "/") }

  func shown(_ path: String) -> String { inProject(path) ? TracedInputs.relative(path, to: root) : path }

  /// The failure for `findings`.
  static func failure(_ findings: [String]) -> TaskFailure {
    let shown = findings.prefix(10).joined(separator: "; ")
    let more = findings.count > 10 ? "; and \(findings.count - 10) more" : ""
    return .message("sandbox: strict: \(shown)\(more)")
  }
}
