import Dispatch
import RunnerBasics
import RunnerModel

/// A task's fingerprint and the pieces it is made of (kept so a later run can say what changed).
package struct Fingerprint: Sendable {
  package var value: String
  package var operation: String
  package var directory: String
  package var environment: String
  package var dependencies: String
  package var sources: [FileRecord]
  /// The files the task's depfile named last time, hashed now (`TaskRecord.discovered`).
  package var discovered: [FileRecord]?
  /// What expanding the source patterns looked at (nil when it cannot be trusted next time).
  package var walk: SourceWalk?
  /// The keyed variables and the dependencies' contributions the digests above were made of,
  /// for `InputDigests` (a record names which one changed).
  package var environmentValues: [(name: String, value: String)] = []
  package var dependencyList: [Dependency] = []

  /// What one dependency contributes: its fingerprint (nil for a task that is not cacheable)
  /// and the digest of what it hands on.
  package struct Dependency: Sendable {
    package var name: String
    package var fingerprint: String?
    package var outputDigest: String

    package init(name: String, fingerprint: String?, outputDigest: String) {
      self.name = name
      self.fingerprint = fingerprint
      self.outputDigest = outputDigest
    }
  }

  /// - Parameters:
  ///   - environment: the declared environment the task sees (`IncrementalStore.keyEnvironment`).
  ///   - previous: the task's last record; its file stamps spare re-hashing unchanged files.
  ///   - checked: the task's sources as already checked (by `SourcePrefetch`); nil checks them now.
  package init(
    task: TaskDefinition, workingDirectory: String, environment: [(name: String, value: String)],
    dependencies: [Dependency], previous: TaskRecord?, checked: SourceCheck? = nil, disk: Disk
  ) {
    let checked =
      checked ?? SourceCheck(task: task, workingDirectory: workingDirectory, previous: previous, disk: disk)
    operation = checked.operation
    // The task's `dir` as written, not the resolved path: the same checkout elsewhere (or the
    // same file named by another relative path) keeps its fingerprints.
    directory = task.directory ?? "."
    var variables = ContentHasher()
    for variable in environment {
      variables.add(variable.name)
      variables.add(variable.value)
    }
    self.environment = variables.finalize()
    var hasher = ContentHasher()
    for dependency in dependencies.sorted(by: { $0.name < $1.name }) {
      hasher.add(dependency.name)
      hasher.add(dependency.fingerprint ?? "-")
      hasher.add(dependency.outputDigest)
    }
    self.dependencies = hasher.finalize()
    environmentValues = environment
    dependencyList = dependencies
    sources = checked.sources
    discovered = checked.discovered
    walk = checked.walk
    value =
      ActionKey(
        task: task, environment: environment, dependencies: self.dependencies, sources: checked.sources,
        discovered: checked.discovered
      )
      .digest.hash
  }

  /// This fingerprint with the files a run's depfile named, hashed (the key the run's record
  /// and cache entry are stored under); with nil, the key before any depfile is read (the
  /// weak key a path set is stored under, `PathSet`).
  package func discovering(_ files: [FileRecord]?, task: TaskDefinition) -> Fingerprint {
    var next = self
    next.discovered = files
    next.value =
      ActionKey(
        task: task, environment: environmentValues, dependencies: dependencies, sources: sources, discovered: files
      )
      .digest.hash
    return next
  }

  /// The source patterns to expand, in groups whose `!` exclusions apply to the group alone:
  /// one for most tasks, one per task for the first part of a task decided as one (`WholeTask`).
  static func sourceGroups(of task: TaskDefinition) -> [[String]] {
    if let groups = task.wholeTask?.sourceGroups, !groups.isEmpty { return groups }
    return [sourcePatterns(of: task)]
  }

  /// The task's `sources`, plus the files an image task loads.
  package static func sourcePatterns(of task: TaskDefinition) -> [String] {
    var patterns = task.sources
    if case .image(let steps) = task.action {
      for step in steps { if case .load(.path(let path), _) = step.kind { patterns.append(path) } }
    }
    return patterns
  }

  /// What stands in for a finished dependency in its dependents' keys, beside the digest of
  /// what it hands on: its own key; or, when it declares output files, only the digest of its
  /// own dependencies' contributions. That is the early cut-off of Bazel and of ninja's
  /// `restat`: a dependency that runs again and writes the same bytes and values leaves its
  /// dependents up to date, while a change further up (a header its dependent reads past it)
  /// still reaches them. A dependency that declares no outputs stands in by its key, so its
  /// undeclared effects still reach its dependents.
  ///
  /// - Parameters:
  ///   - fingerprint: the dependency's key (nil when it is not cacheable).
  ///   - dependencies: the digest of its own dependencies' contributions (`Fingerprint.dependencies`).
  package static func standIn(fingerprint: String?, dependencies: String, declaresOutputs: Bool) -> String? {
    guard declaresOutputs, fingerprint != nil else { return fingerprint }
    return "upstream " + dependencies
  }

  /// What a group hands on: the contributions of its dependencies, so that a change behind a
  /// group reaches the tasks that depend on the group.
  package static func groupDigest(_ dependencies: [Dependency]) -> String {
    var hasher = ContentHasher()
    hasher.add("group")
    for dependency in dependencies.sorted(by: { $0.name < $1.name }) {
      hasher.add(dependency.name)
      hasher.add(dependency.fingerprint ?? "-")
      hasher.add(dependency.outputDigest)
    }
    return hasher.finalize()
  }

  /// Whether the task hands on output files: its own, or, for a part of a task decided as one,
  /// the whole task's (what stands in for it must not depend on which part stood in).
  package static func declaresOutputs(_ task: TaskDefinition) -> Bool {
    !outputPatterns(of: task).isEmpty || !(task.wholeTask?.outputs.isEmpty ?? true)
  }

  /// The task's `outputs`, plus the files an image task saves.
  package static func outputPatterns(of task: TaskDefinition) -> [String] {
    var patterns = task.outputs
    if case .image(let steps) = task.action {
      for step in steps { if case .save(let path, _) = step.kind { patterns.append(path) } }
    }
    return patterns
  }

  static func operationDigest(_ task: TaskDefinition) -> String {
    var hasher = ContentHasher()
    switch task.action {
    case .group: hasher.add("group")
    case .shell(let commands):
      hasher.add("shell")
      for command in commands { hasher.add(command.text) }
      if let shell = task.shell, shell != ShellSetting.standard {
        hasher.add("with")
        for word in shell { hasher.add(word) }
      }
      if !task.arguments.isEmpty {
        hasher.add("arguments")
        hasher.add(Int64(task.arguments.count))
        for word in task.arguments { hasher.add(word) }
      }
    case .image(let steps):
      hasher.add("image")
      for step in steps { hasher.add(String(describing: step.kind)) }
    }
    addWhole(of: task, to: &hasher)
    return hasher.finalize()
  }

  /// For the first part of a task decided as one (`WholeTask`): the whole task, and what its
  /// calls reach.
  static func addWhole(of task: TaskDefinition, to hasher: inout ContentHasher) {
    guard let whole = task.wholeTask, !whole.key.isEmpty else { return }
    hasher.add("whole")
    hasher.add(Int64(whole.key.count))
    for line in whole.key { hasher.add(line) }
    hasher.add(Int64(whole.outputs.count))
    for pattern in whole.outputs { hasher.add(pattern) }
    hasher.add(Int64(whole.sourceGroups.count))
    for group in whole.sourceGroups {
      hasher.add(Int64(group.count))
      for pattern in group { hasher.add(pattern) }
    }
  }

  /// The declared `sources` and `outputs` patterns (a change re-runs the task).
  static func addPatterns(of task: TaskDefinition, to hasher: inout ContentHasher) {
    hasher.add("sources")
    hasher.add(Int64(task.sources.count))
    for pattern in task.sources { hasher.add(pattern) }
    hasher.add("outputs")
    hasher.add(Int64(task.outputs.count))
    for pattern in task.outputs { hasher.add(pattern) }
  }

  /// Inherited variables that count in every key whatever the task file says: the one that
  /// decides which programs a command finds.
  package static let keyedByDefault: [String] = ["PATH"]

  /// The variables whose values are the base of every task's key: `PATH`, the names the file's
  /// `env` sets and the file's `key_env`, less the file's `secrets`. Nothing else of runner's
  /// environment counts, so a variable new in the shell (`FOO=1 runner`) re-runs nothing.
  package static func keyedVariables(of file: TaskFile) -> Set<String> {
    Set(keyedByDefault + file.environment.map(\.name) + file.keyEnvironment).subtracting(file.secretNames)
  }

  /// `names`' values in `environment`, sorted by name; an unset variable is left out, which
  /// differs from one set to the empty string.
  package static func keyedEnvironment(_ environment: [String: String], names: some Sequence<String>) -> [(
    name: String, value: String
  )] {
    Set(names).sorted().compactMap { name in environment[name].map { (name: name, value: $0) } }
  }

  /// Variables left out of the no-op record's key: runner's own per-run values and what a shell
  /// or terminal changes from one window to the next.
  static let volatileVariables: Set<String> = [
    "RUNNER_OUTPUT", "RUNNER_TASK", "RUNNER_CACHE_MAX", "RUNNER_LOCK", "_", "PWD", "OLDPWD", "SHLVL", "TERM_SESSION_ID",
    "WINDOWID", "SSH_AUTH_SOCK", "SSH_CLIENT", "SSH_CONNECTION", "SSH_TTY", "XDG_SESSION_ID", "TRACEPARENT",
    "TRACESTATE",
  ]

  /// What a directory named without a trailing `/` holds as content: never a file's digest.
  package static let directoryDigest: ContentDigest = {
    var hasher = ContentHasher()
    hasher.add("runner-directory")
    return ContentDigest(hash: hasher.finalize(), size: 0)
  }()

  /// A directory's listing as content: the digest of its entries' names, sorted (runner's own
  /// temporary files aside), and their count as the size.
  static func listing(_ path: String, disk: Disk) -> ContentDigest {
    listingDigest(of: disk.files.list(path).map(\.name).filter { !$0.contains(FilePath.temporaryMark) }.sorted())
  }

  /// A listing's content from its names, sorted.
  static func listingDigest(of names: [String]) -> ContentDigest {
    var hasher = ContentHasher()
    // Never the digest of a file's bytes (an empty listing would be an empty file's).
    hasher.add("runner-listing")
    for name in names { hasher.add(name) }
    return ContentDigest(hash: hasher.finalize(), size: Int64(names.count))
  }

  /// The digest of runner's whole environment (every variable but the volatile ones, sorted by
  /// name), for the no-op record's key, which is made before the task file is read.
  static func wholeEnvironmentDigest(_ environment: [String: String]) -> String {
    var hasher = ContentHasher()
    for name in environment.keys.sorted() where !volatileVariables.contains(name) {
      hasher.add(name)
      hasher.add(environment[name]!)
    }
    return hasher.finalize()
  }

  /// Content hashes of `paths`, re-using a previous hash when the file's stamp is unchanged. A
  /// path ending in `/` names a directory listed: its content is the digest of its entries'
  /// names. Any other directory has one content for all (`directoryDigest`).
  ///
  /// - Parameter disk: judges which new stamps to keep (asked before the first `stat`).
  package static func hashFiles(_ paths: [String], in directory: String, previous: [FileRecord], disk: Disk)
    -> [FileRecord]
  {
    // Usually the paths are the previous ones in the same order; a dictionary only otherwise.
    var known: [String: FileRecord]?
    let judge = disk.judge()
    return paths.indices.map { index in
      let path = paths[index]
      let full = FilePath.resolve(path, in: directory)
      guard let status = disk.files.status(full, follow: true) else { return FileRecord(path: path, content: nil) }
      let old: FileRecord?
      if index < previous.count, previous[index].path == path {
        old = previous[index]
      } else {
        if known == nil { known = Dictionary(previous.map { ($0.path, $0) }, uniquingKeysWith: { $1 }) }
        old = known?[path]
      }
      if let old, let stamp = old.stamp, stamp == status.stamp, judge.trusts(stamp) {
        return old
      }
      if path.hasSuffix("/") {
        // A directory listed: its entries' names.
        guard status.isDirectory else { return FileRecord(path: path, content: nil) }
        return FileRecord(path: path, content: listing(full, disk: disk), stamp: judge.stamp(status.stamp))
      }
      if status.isDirectory {
        // A directory looked at: that it is one (a path looked up in vain that is one now
        // differs), whatever it holds.
        return FileRecord(path: path, content: directoryDigest, stamp: judge.stamp(status.stamp))
      }
      guard let content = disk.files.hashContent(full) else { return FileRecord(path: path, content: nil) }
      return FileRecord(
        path: path, content: content, executable: status.mode & 0o100 != 0,
        stamp: judge.stamp(status.stamp))
    }
  }

  /// Digest of what a task hands on: its values, its output files, its image's pixels.
  package static func outputDigest(values: [String: String], files: [FileRecord], pixels: String?) -> String {
    var hasher = ContentHasher()
    for key in values.keys.sorted() {
      hasher.add(key)
      hasher.add(values[key]!)
    }
    hasher.add(Int64(files.count))
    for file in files {
      hasher.add(file.path)
      hasher.add(file.hashText)
    }
    hasher.add(pixels ?? "-")
    return hasher.finalize()
  }

  /// The size of the pieces `pixelDigest` hashes on all cores.
  static let pixelChunk = 1 << 22

  /// SHA-256 over the size and the SHA-256 of each 4 MiB piece of an image's pixels (RGBA, row
  /// by row), the pieces hashed on all cores: a 12-megapixel image is 48 MB, 25 ms of one core at
  /// the end of the task, when its dependents are waiting.
  package static func pixelDigest(width: Int, height: Int, pixels: UnsafeRawBufferPointer) -> String {
    /// Each piece reads its own range and writes its own 32 bytes.
    struct Pieces: @unchecked Sendable {
      let pixels: UnsafeRawBufferPointer
      let digests: UnsafeMutableRawBufferPointer
    }
    let pieces = (pixels.count + pixelChunk - 1) / pixelChunk
    var digests = [UInt8](repeating: 0, count: pieces * 32)
    digests.withUnsafeMutableBytes { out in
      let shared = Pieces(pixels: pixels, digests: out)
      DispatchQueue.concurrentPerform(iterations: pieces) { piece in
        let start = piece * pixelChunk
        let end = min(shared.pixels.count, start + pixelChunk)
        let digest = ContentHasher.rawDigest(UnsafeRawBufferPointer(rebasing: shared.pixels[start..<end]))
        UnsafeMutableRawBufferPointer(rebasing: shared.digests[(piece * 32)..<(piece * 32 + 32)])
          .copyBytes(from: digest)
      }
    }
    var hasher = ContentHasher()
    hasher.add("pixels-2")
    hasher.add(Int64(width))
    hasher.add(Int64(height))
    hasher.add(Int64(pixels.count))
    digests.withUnsafeBytes { hasher.add(bytes: $0) }
    return hasher.finalize()
  }
}
