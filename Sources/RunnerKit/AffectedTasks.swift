import RunnerBasics
import RunnerCache
import RunnerExecution
import RunnerModel
import RunnerProcess
import Synchronization

/// `--affected[=REF]`: which selected tasks a change touches. A task is chosen when a file
/// changed since REF (committed, staged, unstaged or untracked) is one of its `sources`, or is
/// a file it is defined by (the task file, the included file it is in, a `.env` file it reads);
/// every task that depends on a chosen one, within the selection, is chosen too.
struct AffectedTasks {
  /// Why each chosen task was chosen, by graph index.
  var reasons: [Int: String] = [:]
  /// What the changes were compared with, as said to the user (`origin/main`, a ref, `HEAD`).
  var base = ""

  /// What `changedFiles` found: the base as said to the user, the commit (or `HEAD`) it is,
  /// the repository's top directory, and the changed files as absolute paths.
  struct Changes {
    var base: String
    var commit: String
    var root: String
    var files: [String]
  }

  /// The files git reports as changed since `ref` (nil: the merge base with the upstream
  /// branch; without one, with the default branch — `origin/HEAD`, `main` or `master` — else
  /// HEAD), as absolute paths; or the reason it could not tell.
  static func changedFiles(in directory: String, ref: String?) async -> Result<Changes, Problem> {
    guard case .success(let top) = await git(["rev-parse", "--show-toplevel"], in: directory) else {
      return .failure(Problem(text: "--affected needs a git repository, and '\(directory)' is not in one"))
    }
    let root = FilePath.canonical(top.trimmingSuffix("\n"))
    var base: String
    var shown: String
    if let ref {
      guard case .success(let commit) = await git(["rev-parse", "--verify", "--quiet", ref + "^{commit}"], in: root)
      else { return .failure(Problem(text: "--affected=\(ref): git knows no commit '\(ref)'")) }
      (base, shown) = (commit.trimmingSuffix("\n"), ref)
    } else if case .success(let upstream) = await git(["rev-parse", "--abbrev-ref", "@{upstream}"], in: root) {
      guard case .success(let merge) = await git(["merge-base", "HEAD", "@{upstream}"], in: root) else {
        // A shallow clone: comparing with HEAD would run nothing and say so, silently wrong.
        return .failure(
          Problem(
            text: "--affected: no merge base of HEAD and \(upstream.trimmingSuffix("\n")) (a shallow clone? "
              + "fetch more history, or name the base: --affected=REF)"))
      }
      (base, shown) = (merge.trimmingSuffix("\n"), "the merge base with " + upstream.trimmingSuffix("\n"))
    } else if let (branch, merge) = await defaultBranchBase(in: root) {
      // No upstream (a new local branch): HEAD would make the branch's own commits count for
      // nothing.
      (base, shown) = (merge, "the merge base with \(branch) (no upstream branch)")
    } else {
      (base, shown) = ("HEAD", "HEAD")
    }
    var names: [String] = []
    // --no-renames: a renamed file counts under its old name too.
    if case .success(let text) = await git(["diff", "--name-only", "--no-renames", "-z", base, "--"], in: root) {
      names += text.split(separator: "\0").map(String.init)
    } else if case .success(let text) = await git(["ls-files", "-z"], in: root) {
      names += text.split(separator: "\0").map(String.init)  // no commit yet: everything is new
    }
    if case .success(let text) = await git(["ls-files", "--others", "--exclude-standard", "-z"], in: root) {
      names += text.split(separator: "\0").map(String.init)
    }
    return .success(
      Changes(base: shown, commit: base, root: root, files: Array(Set(names.map { root + "/" + $0 })).sorted()))
  }

  /// The first of the default branch's usual names that git knows and that HEAD shares history
  /// with, and the merge base.
  static func defaultBranchBase(in root: String) async -> (String, String)? {
    var candidates = ["main", "master", "origin/main", "origin/master"]
    if case .success(let head) = await git(["rev-parse", "--abbrev-ref", "origin/HEAD"], in: root) {
      candidates.insert(head.trimmingSuffix("\n"), at: 0)
    }
    for branch in candidates {
      guard case .success(let merge) = await git(["merge-base", "HEAD", branch], in: root) else { continue }
      return (branch, merge.trimmingSuffix("\n"))
    }
    return nil
  }

  /// Chooses among `selection`'s members. A changed task file chooses the tasks whose
  /// definitions changed in it (`definitions`), not all of its tasks.
  init(selection: GraphSelection, changed: [String], base: String, definitions: AffectedDefinitions = .init()) {
    self.base = base
    let graph = selection.graph
    let changedSet = Set(changed)
    let root = FilePath.canonical(graph.file.directory)
    func shown(_ path: String) -> String {
      path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }
    for task in selection.members {
      let definition = graph[task]
      var defined: String?
      // The file the task is written in; an including file chooses it only as a whole.
      let own = Self.absolute(
        graph.file.scopes.indices.contains(definition.scope)
          ? graph.file.scopes[definition.scope].path : graph.file.path,
        ".")
      for file in Self.definingFiles(definition, in: graph.file) where changedSet.contains(file) {
        guard let entry = definitions.changedTasks[file], let tasks = entry else {
          defined = "\(shown(file)) changed"  // a .env file, or the whole task file
          break
        }
        if file == own, tasks.contains(Self.writtenName(of: definition, in: graph.file)) {
          defined = "its definition in \(shown(file)) changed"
          break
        }
      }
      if let defined {
        reasons[task] = defined
        continue
      }
      guard !definition.sources.isEmpty else { continue }
      let base = Self.directory(of: definition, root: root)
      if let file = changed.first(where: { SourceGlob.covers(definition.sources, path: $0, base: base) }) {
        reasons[task] = "\(shown(file)) changed"
      }
    }
    // Dependents, in dependency order (a member's dependencies come before it).
    for task in selection.stages.joined() where reasons[task] == nil {
      if let cause = graph.dependencies[task].first(where: { reasons[$0] != nil }) {
        reasons[task] = "depends on '\(graph[cause].name)'"
      }
    }
  }

  /// The task's name as its file writes it: without the include's namespace, the params or
  /// matrix values of its node, or the part of it a task call made.
  static func writtenName(of task: TaskDefinition, in file: TaskFile) -> String {
    var name = Substring(task.taskName ?? task.name)
    if let hash = name.firstIndex(of: "#") { name = name[..<hash] }
    if file.scopes.indices.contains(task.scope) {
      let namespace = file.scopes[task.scope].namespace
      if !namespace.isEmpty, name.hasPrefix(namespace + ":") { name = name.dropFirst(namespace.count + 1) }
    }
    return String(name)
  }

  /// A task's working directory, canonical; `root` is the task file's, canonical.
  static func directory(of task: TaskDefinition, root: String) -> String {
    guard let directory = task.directory else { return root }
    return FilePath.canonical(FilePath.resolve(directory, in: root))
  }

  /// The files a task is defined by, as absolute paths: the root task file, the included files
  /// it is written in, the `.env` files it reads.
  static func definingFiles(_ task: TaskDefinition, in file: TaskFile) -> [String] {
    var files = [absolute(file.path, ".")]
    files += file.dotenv.filter { $0.command == nil }.map { absolute($0.path, file.directory) }
    var scope: Int? = task.scope < file.scopes.count ? task.scope : nil
    while let index = scope, index > 0 {
      let include = file.scopes[index]
      files.append(absolute(include.path, "."))
      files += include.dotenv.filter { $0.command == nil }.map { absolute($0.path, include.fileDirectory) }
      scope = include.parent
    }
    files += task.dotenv.filter { $0.command == nil }.map {
      absolute(
        $0.path, file.scopes.indices.contains(task.scope) ? file.scopes[task.scope].fileDirectory : file.directory)
    }
    return files
  }

  /// The root task file and every included one, as absolute paths.
  static func taskFiles(of file: TaskFile) -> [String] {
    [absolute(file.path, ".")] + file.scopes.dropFirst().map { absolute($0.path, ".") }
  }

  /// `path` (relative to `directory`) absolute, its folder canonical: as git's names are made.
  static func absolute(_ path: String, _ directory: String) -> String {
    let full = FilePath.resolve(path, in: directory)
    let parent = TaskFileLoader.directory(of: full)
    return FilePath.canonical(parent) + "/" + full[full.index(after: full.lastIndex(of: "/")!)...]
  }

  /// Runs git; its stdout, or failure.
  static func git(_ arguments: [String], in directory: String) async -> Result<String, GitFailure> {
    let output = CollectedOutput()
    let spec = ProcessSpec(
      arguments: ["git"] + arguments, environment: ProcessEnvironment.current, workingDirectory: directory)
    guard let outcome = try? await ProcessReactor.shared.run(spec, sink: output, grace: .seconds(1)), outcome.isSuccess
    else { return .failure(GitFailure()) }
    return .success(output.text)
  }

  struct GitFailure: Error {}

  struct Problem: Error {
    var text: String
  }

}

extension String {
  func trimmingSuffix(_ suffix: String) -> String {
    hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
  }
}
