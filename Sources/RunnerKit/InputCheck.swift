import RunnerBasics
import RunnerCache
import RunnerExecution
import RunnerModel
import RunnerProcess

/// `runner --check-inputs`: after a run in which every selected shell task ran traced, what
/// each task with `sources` (or a `depfile`) read of the project that its patterns do not
/// cover, and wrote that its `outputs` do not declare.
///
/// The project is the task file's directory (`.runner` and `.git` aside). A file read counts
/// when it is a regular file now and the task did not write it itself; one its dependencies
/// declare as outputs, or its depfile names, is declared. A file written counts when it is
/// there now (a temporary file the task removed does not).
struct InputCheck {
  struct Finding {
    var task: Int
    var reads: [String] = []
    var writes: [String] = []
    /// Why the task's trace cannot be trusted to be whole.
    var problem: String?

    var isClean: Bool { reads.isEmpty && writes.isEmpty && problem == nil }
  }

  let selection: GraphSelection
  let traces: TaskTraces
  /// The project's directory, with links resolved (as traced paths are).
  let root: String

  init(selection: GraphSelection, traces: TaskTraces) {
    self.selection = selection
    self.traces = traces
    root = FilePath.canonical(selection.graph.file.directory)
  }

  /// The tasks checked: shell tasks with `sources` or a `depfile`.
  var checked: [Int] {
    selection.members.filter { task in
      let definition = selection.graph[task]
      guard case .shell = definition.action else { return false }
      return !definition.sources.isEmpty || definition.discoversInputs
    }
  }

  func findings() -> [Finding] {
    checked.map(finding)
  }

  func directory(of task: Int) -> String {
    selection.graph[task].directory.map { FilePath.resolve($0, in: root) } ?? root
  }

  func finding(_ task: Int) -> Finding {
    let graph = selection.graph
    let definition = graph[task]
    var finding = Finding(task: task)
    guard let log = traces.log(of: task) else {
      finding.problem = "it ran no command here (it did not run, or ran on a remote executor)"
      return finding
    }
    finding.problem = log.problem.map { "its trace is not whole: \($0)" }
    let base = directory(of: task)
    var written = Set<String>()
    var read: [String] = []
    for access in log.accesses {
      let path = Self.normalized(access.path)
      switch access.kind {
      case .written: written.insert(path)
      case .read, .executed: read.append(path)
      case .probed, .listed, .removed, .madeDirectory: break
      }
    }
    let depfile = definition.depfile.map { Self.normalized(FilePath.resolve($0, in: base)) }
    var declared = Set(depfile.map { Self.files(namedBy: $0, in: base) } ?? [])
    for dependency in dependencies(of: task) {
      let directory = self.directory(of: dependency)
      for path in SourceGlob.expand(Fingerprint.outputPatterns(of: graph[dependency]), in: directory) {
        declared.insert(Self.normalized(FilePath.resolve(path, in: directory)))
      }
    }
    var seen = Set<String>()
    // What a traced task (`sources: auto`) reads is its input by definition.
    for path in read
    where !definition.sourcesAuto && seen.insert(path).inserted && inProject(path)
      && !written.contains(path)
    {
      guard !declared.contains(path), isFile(path),
        !SourceGlob.covers(Fingerprint.sourcePatterns(of: definition), path: path, base: base)
      else { continue }
      finding.reads.append(path)
    }
    let outputs = Fingerprint.outputPatterns(of: definition)
    for path in written.sorted() where inProject(path) && path != depfile && isFile(path) {
      if !SourceGlob.covers(outputs, path: path, base: base) { finding.writes.append(path) }
    }
    return finding
  }

  /// The files `depfile` (absolute) names now, absolute.
  static func files(namedBy depfile: String, in base: String) -> [String] {
    guard let bytes = try? FileReader.read(depfile), case .success(let paths) = Depfile.prerequisites(bytes) else {
      return []
    }
    return paths.map { normalized(FilePath.resolve($0, in: base)) }
  }

  /// Every task `task` depends on, directly or not.
  func dependencies(of task: Int) -> Set<Int> {
    var found = Set<Int>()
    var work = [task]
    while let next = work.popLast() {
      for dependency in selection.graph.dependencies[next] where found.insert(dependency).inserted {
        work.append(dependency)
      }
    }
    return found
  }

  func inProject(_ path: String) -> Bool { TracedInputs(projectDirectory: root).inProject(path) }

  func isFile(_ path: String) -> Bool {
    CacheFileSystem.status(path, follow: true)?.isRegular == true
  }

  static func normalized(_ path: String) -> String { TracedInputs.normalized(path) }

  static func relative(_ path: String, to directory: String) -> String { TracedInputs.relative(path, to: directory) }

  /// The pattern to add for `file` (relative to the task's directory): every file of its
  /// extension in its directory, or the file itself.
  static func pattern(for file: String) -> String {
    let name = file.split(separator: "/").last.map(String.init) ?? file
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return file }
    let directory = FilePath.parent(of: file)
    let glob = "*" + name[dot...]
    return directory == "." ? glob : directory + "/" + glob
  }

  /// The report, and whether every checked task is clean.
  func report(_ findings: [Finding]) -> (text: String, clean: Bool) {
    let graph = selection.graph
    var out = ""
    for finding in findings where !finding.isClean {
      let task = graph[finding.task]
      let base = directory(of: finding.task)
      let head = "\(task.location): task '\(task.name)'"
      if let problem = finding.problem { out += "\(head): \(problem)\n" }
      for (files, what, key) in [
        (finding.reads, "reads", "sources"), (finding.writes, "writes", "outputs"),
      ] where !files.isEmpty {
        let count = files.count == 1 ? "1 file" : "\(files.count) files"
        out +=
          "\(head) \(what) \(count) its \(key) do not "
          + (key == "sources" ? "cover" : "declare") + ":\n"
        for file in files { out += "  \(Self.relative(file, to: root))\n" }
        // A glob for sources, which may match more; each path for outputs, checked one by one.
        let patterns = Set(
          files.map { key == "sources" ? Self.pattern(for: Self.relative($0, to: base)) : Self.relative($0, to: base) }
        ).sorted()
        out += "  add to its \(key): " + patterns.map { "\"\($0)\"" }.joined(separator: ", ") + "\n"
      }
    }
    let dirty = findings.filter { !$0.isClean }.count
    let unchecked = selection.members.count - findings.count
    let note = unchecked > 0 ? " (\(unchecked) other task(s), without sources, not checked)" : ""
    if dirty == 0 {
      out += "check-inputs: every file the \(findings.count) checked task(s) read or wrote is declared\(note)\n"
    } else {
      out += "check-inputs: \(dirty) of \(findings.count) checked task(s) read or write undeclared files\(note)\n"
    }
    return (out, dirty == 0)
  }
}

extension Runner {
  /// Prints the `--check-inputs` report of a run that succeeded; 0 when every checked task
  /// declares what it read and wrote, 1 otherwise.
  static func checkInputs(_ selection: GraphSelection, traces: TaskTraces) -> Int32 {
    let check = InputCheck(selection: selection, traces: traces)
    let (text, clean) = check.report(check.findings())
    Terminal.write("\n" + text, to: 1)
    return clean ? ExitStatus.success : ExitStatus.taskFailed
  }
}
