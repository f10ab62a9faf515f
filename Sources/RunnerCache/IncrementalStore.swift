import RunnerModel
import Synchronization

/// The incremental state of one run: the records loaded from `.runner/state`, the records
/// this run makes, the local cache, and warnings. Shared by every `CachingOperation` of the run.
///
/// State is written atomically at the end of the run and, during a long run, at most every
/// `saveInterval`, so a crash or SIGKILL loses at most the latest records (the cache entries
/// written meanwhile still restore those tasks), never corrupts the file.
package final class IncrementalStore: Sendable {
  static let saveInterval = Duration.seconds(2)

  package let settings: CacheSettings
  /// `.runner` next to the task file.
  package let directory: String
  package let cache: CacheStore
  let baseEnvironment: String
  /// The environment tasks inherit, for the variables a task's `key_env` names.
  let inherited: [String: String]
  /// The environment digest of every task without `env` of its own.
  let plainEnvironment: String
  /// Source checks made ahead of the scheduler while no file has changed (see `SourcePrefetch`).
  package let prefetch: SourcePrefetch

  private struct Mutable {
    var state: BuildState
    var dirty = false
    var stored = false
    var lastSave = ContinuousClock.now
    var warnings: [String] = []
  }

  private let mutable: Mutex<Mutable>
  private let printWarnings: Bool

  /// Loads `.runner/state`; a corrupt or truncated state is discarded with a warning.
  ///
  /// - Parameters:
  ///   - environment: runner's environment (after the file's `env`), the base of every task's.
  ///   - keyed: the variables of `environment` that count in every key (`Fingerprint.keyedVariables`).
  ///   - printWarnings: print warnings on stderr as they happen (tests read `warnings`).
  package init(
    directory: String, settings: CacheSettings, environment: [String: String],
    keyed: Set<String> = Set(Fingerprint.keyedByDefault), printWarnings: Bool = true
  ) {
    self.directory = directory
    self.settings = settings
    self.printWarnings = printWarnings
    cache = CacheStore(directory: directory + "/cache", maximumBytes: settings.maximumBytes)
    baseEnvironment = Fingerprint.keyedEnvironmentDigest(environment, names: keyed)
    inherited = environment
    plainEnvironment = Fingerprint.environmentDigest(base: baseEnvironment, environment: []) { _, _ in nil }
    var loaded: StatePreload.Loaded
    if let preload = settings.preload, preload.directory == directory {
      loaded = preload.wait()
      // Read before the lock: still good if the file is the one that was read.
      if loaded.stamp != CacheFileSystem.status(directory + "/state")?.stamp {
        loaded.checks?.stop()
        loaded = StatePreload.read(directory)
      }
    } else {
      loaded = StatePreload.read(directory)
    }
    prefetch = SourcePrefetch(checks: loaded.checks)
    let state = loaded.state
    let warnings = loaded.warning.map { [$0] } ?? []
    mutable = Mutex(Mutable(state: state, warnings: warnings))
    if printWarnings { for warning in warnings { Self.print(warning) } }
  }

  package var warnings: [String] { mutable.withLock { $0.warnings } }

  package func warn(_ text: String) {
    mutable.withLock { $0.warnings.append(text) }
    if printWarnings { Self.print(text) }
  }

  static func print(_ text: String) {
    DiagnosticPrinter().print([Diagnostic(.warning, text)])
  }

  /// The digest of the environment `task` sees; `lookup` gives a dependency's output value.
  package func environmentDigest(_ task: TaskDefinition, lookup: (String, String) -> String?) -> String {
    guard !task.environment.isEmpty || !task.keyEnvironment.isEmpty else { return plainEnvironment }
    var base = baseEnvironment
    if !task.keyEnvironment.isEmpty {
      var hasher = ContentHasher()
      hasher.add(base)
      hasher.add(Fingerprint.keyedEnvironmentDigest(inherited, names: task.keyEnvironment))
      base = hasher.finalize()
    }
    return Fingerprint.environmentDigest(base: base, environment: task.environment, lookup: lookup)
  }

  package func record(_ task: String) -> TaskRecord? {
    mutable.withLock { $0.state.tasks[task] }
  }

  package var state: BuildState { mutable.withLock { $0.state } }

  /// Replaces (or, with nil, forgets) a task's record; saves if the last save is old enough.
  package func update(_ task: String, _ record: TaskRecord?, storedInCache: Bool = false) {
    let due = mutable.withLock { mutable -> Bool in
      mutable.state.tasks[task] = record
      mutable.dirty = true
      mutable.stored = mutable.stored || storedInCache
      return ContinuousClock.now - mutable.lastSave > Self.saveInterval
    }
    if due { save() }
  }

  /// Writes the state if anything changed since it was read or last written.
  package func save() {
    let snapshot = mutable.withLock { mutable -> BuildState? in
      guard mutable.dirty else { return nil }
      mutable.dirty = false
      mutable.lastSave = .now
      return mutable.state
    }
    guard let snapshot else { return }
    do {
      try CacheFileSystem.makeDirectories(directory)
      try CacheFileSystem.writeAtomically(directory + "/state", snapshot.encoded())
    } catch {
      warn("cannot write the incremental state: \(error)")
    }
  }

  /// The end of a run: save the state, and bound the cache if this run added to it.
  package func finish() {
    prefetch.stop()
    save()
    if settings.useCache, mutable.withLock({ $0.stored }) { cache.evict() }
  }

  /// Starts checking the sources of the selection's cacheable tasks on another thread,
  /// dependencies first, as the scheduler will reach them.
  package func startPrefetch(_ selection: GraphSelection, workingDirectory: (Int) -> String) {
    let order = selection.members.filter { selection.graph[$0].isCacheable }
      .sorted { (selection.stage[$0], $0) < (selection.stage[$1], $1) }
    guard order.count > 1 else { return }
    prefetch.start(
      order.map { task in
        .init(
          index: task, task: selection.graph[task], workingDirectory: workingDirectory(task),
          dependencies: selection.graph.dependencies[task].map { selection.graph[$0].name })
      }, store: self)
  }

  /// `--clean-cache`: removes `.runner/cache`.
  package static func cleanCache(directory: String) {
    CacheFileSystem.removeTree(directory + "/cache")
  }
}
