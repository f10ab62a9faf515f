import RunnerBasics
import RunnerModel
import Synchronization

/// The incremental state of one run: the records loaded from `.runner/state`, the records
/// this run makes, the local cache, and warnings. Shared by every `CachingOperation` of the run.
///
/// The records this run changed are appended to the state file at the end of the run and,
/// during a long run, at most every `saveInterval` (a crash or SIGKILL loses at most the latest
/// records; the cache entries written meanwhile still restore those tasks). When the appends
/// would pass a quarter of the file's last whole write, or part of the file was damaged, it
/// is written whole instead, atomically.
package final class IncrementalStore: Sendable {
  static let saveInterval = Duration.seconds(2)

  package let settings: CacheSettings
  /// `.runner` next to the task file.
  package let directory: String
  /// The task file's directory: the state's directory is `.runner` in it.
  package var projectDirectory: String { FilePath.parent(of: directory) }
  package let cache: CacheStore
  /// The keyed variables of the environment tasks inherit (`Fingerprint.keyedVariables`), set
  /// ones only, sorted by name: the whole key environment of a task without `env` of its own.
  let baseEnvironment: [(name: String, value: String)]
  /// The environment tasks inherit, for the variables a task's `key_env` names.
  let inherited: [String: String]
  /// Kept out of every key: the file's `secrets` (besides each task's own), and every secret
  /// value, masked wherever another variable's value holds it.
  let secretNames: Set<String>
  package let secrets: SecretMask
  /// Source checks made ahead of the scheduler while no file has changed
  /// (`IncrementalStore+ReadAhead.swift`).
  let prefetch: SourcePrefetch
  /// The tasks the record of the last run vouches for, with their records' fingerprints
  /// (`settled`), and those of them found up to date so far.
  let vouched: [String: String]
  /// The last record's digests of the task file, when its bytes are this run's.
  let recordedTaskFile: NoOpRecord.TaskFileDigests?
  let confirmed = Mutex(Set<String>())
  /// Which file stamps this run's records keep (`.runner/clock` is its reference).
  package let disk: Disk
  /// The run's clock: the stamps' trust and the age of temporary files.
  package let clock: any RunClock

  private struct Mutable {
    var state: BuildState
    /// Tasks whose record changed since the last save.
    var changed: Set<String> = []
    var dirty = false
    /// Bytes this run added to the cache.
    var storedBytes: Int64 = 0
    var lastSave: ContinuousClock.Instant
    var warnings: [String] = []
  }

  private let mutable: Mutex<Mutable>

  /// What this store knows of the state file; held while it writes, so saves never interleave.
  private struct FileState {
    /// The stamp as this store last read or wrote it: an append needs the file unchanged since.
    var stamp: CacheFileSystem.Stamp?
    /// The size of the file's last whole write: appends stop at a quarter more.
    var wholeBytes: Int
    /// Write the file whole at the next save (part of it was damaged, or a write failed).
    var writeWhole: Bool
    /// Its last segment is a no-op record, which the next save voids.
    var endsWithNoOp: Bool
  }

  private let file: Mutex<FileState>
  /// The directories this run has rid of a killed runner's temporary files (`cleanOnce`).
  private let cleaned = Mutex(Set<String>())
  private let printWarnings: Bool

  /// Loads `.runner/state`; a corrupt or truncated state is discarded with a warning.
  ///
  /// - Parameters:
  ///   - environment: runner's environment (after the file's `env`), the base of every task's.
  ///   - keyed: the variables of `environment` that count in every key (`Fingerprint.keyedVariables`).
  ///   - secretNames: the file's `secrets`; `secrets`: every secret value of the run.
  ///   - printWarnings: print warnings on stderr as they happen (tests read `warnings`).
  ///   - touchesClock: judge new stamps by touching `.runner/clock` (`Disk`); false for
  ///     a store that writes nothing (predictions), which judges by `clock` alone.
  ///   - images: decodes a cache entry's image, for predictions (`ImageDigesting`).
  ///   - files: the file system of the state log and of the records' files (one in memory under
  ///     test); the cache and the read-ahead are the machine's.
  package init(
    directory: String, settings: CacheSettings, environment: [String: String],
    keyed: Set<String> = Set(Fingerprint.keyedByDefault), secretNames: Set<String> = [], secrets: SecretMask = .none,
    printWarnings: Bool = true, clock: any RunClock = SystemClock(), touchesClock: Bool = true,
    images: (any ImageDigesting)? = nil, files: any FileSystem = LocalFileSystem()
  ) {
    self.directory = directory
    disk = Disk(mark: touchesClock ? directory + "/clock" : nil, clock: clock, files: files)
    self.settings = settings
    self.printWarnings = printWarnings
    cache = CacheStore(
      directory: directory + "/cache", maximumBytes: settings.maximumBytes, clock: clock, images: images)
    self.clock = clock
    self.secretNames = secretNames
    self.secrets = secrets
    baseEnvironment = Fingerprint.keyedEnvironment(environment, names: keyed.subtracting(secretNames)).map {
      (name: $0.name, value: secrets.masking($0.value))
    }
    inherited = environment
    var loaded: StatePreload.Loaded
    if let preload = Self.takeReadAhead(directory) {
      loaded = preload.wait()
      // Read before the lock: still good if the file is the one that was read.
      if loaded.stamp != files.status(directory + "/state", follow: true)?.stamp {
        loaded.checks?.stop()
        loaded = StatePreload.read(directory, files: files)
      }
    } else {
      loaded = StatePreload.read(directory, files: files)
    }
    prefetch = SourcePrefetch(checks: loaded.checks)
    (vouched, recordedTaskFile) =
      loaded.checks == nil ? ([:], nil) : Self.vouched(by: loaded.record, settings: settings)
    file = Mutex(
      FileState(
        stamp: loaded.stamp, wholeBytes: loaded.wholeBytes, writeWhole: loaded.damaged,
        endsWithNoOp: loaded.endsWithNoOp))
    let state = loaded.state
    let warnings = loaded.warning.map { [$0] } ?? []
    // A damaged file is written whole at the end of this run, even one that changes nothing.
    mutable = Mutex(Mutable(state: state, dirty: loaded.damaged, lastSave: clock.now, warnings: warnings))
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

  /// The declared environment `task` sees, sorted by name; `lookup` gives a dependency's
  /// output value. Its own `env` (as rendered) wins over an inherited variable of the same name.
  /// Secrets are left out, and a secret value inside another variable's is masked.
  package func keyEnvironment(_ task: TaskDefinition, lookup: (String, String) -> String?) -> [(
    name: String, value: String
  )] {
    guard !task.environment.isEmpty || !task.keyEnvironment.isEmpty || !task.secretNames.isEmpty else {
      return baseEnvironment
    }
    var values = Dictionary(baseEnvironment.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
    for name in task.keyEnvironment { values[name] = inherited[name] }
    for entry in task.environment { values[entry.name] = entry.origin == .unset ? nil : entry.value.render(lookup) }
    for name in secretNames { values[name] = nil }
    for name in task.secretNames { values[name] = nil }
    return values.sorted { $0.key < $1.key }.map { (name: $0.key, value: secrets.masking($0.value)) }
  }

  /// Removes a killed runner's temporary files from `directory`, the first time this run
  /// writes there: a restore into a directory of 10 000 outputs lists it once, not per task.
  package func cleanOnce(_ directory: String) {
    guard cleaned.withLock({ $0.insert(directory).inserted }) else { return }
    CacheFileSystem.removeOrphanedTemporaries(in: directory, clock: clock)
  }

  package func record(_ task: String) -> TaskRecord? {
    mutable.withLock { $0.state.tasks[task] }
  }

  package var state: BuildState { mutable.withLock { $0.state } }

  /// Replaces (or, with nil, forgets) a task's record; saves if the last save is old enough.
  ///
  /// - Parameter storedInCache: the bytes of the cache entry this run stored for the task.
  package func update(_ task: String, _ record: TaskRecord?, storedInCache: Int64 = 0) {
    let due = mutable.withLock { mutable -> Bool in
      mutable.state.tasks[task] = record
      mutable.changed.insert(task)
      mutable.dirty = true
      mutable.storedBytes += storedInCache
      return clock.now - mutable.lastSave > Self.saveInterval
    }
    if due { save() }
  }

  /// Writes what changed since the state was read or last saved: one segment appended to the
  /// file, or the whole file when the appends would pass a quarter of its last whole write,
  /// part of it was damaged, or it changed under this store.
  package func save() {
    save(ending: .asIs)
  }

  /// How a save leaves the end of the file: as the segments it writes leave it (a save during
  /// a run), with the record of a run in which every task succeeded, or with no record
  /// standing (the end of any other run).
  private enum Ending {
    case asIs
    case record(NoOpRecord)
    case noRecord
  }

  private func save(ending: Ending) {
    file.withLock { file in
      let taken = mutable.withLock { mutable -> (state: BuildState, changed: [String])? in
        guard mutable.dirty else { return nil }
        mutable.dirty = false
        mutable.lastSave = clock.now
        defer { mutable.changed.removeAll() }
        return (mutable.state, mutable.changed.sorted())
      }
      // A record stands only as the file's last segment: any other segment voids it, and a
      // run that ends without one and changed nothing voids it with an empty segment.
      let last: [UInt8]
      switch ending {
      case .record(let record): last = record.segment()
      case .noRecord where taken == nil && file.endsWithNoOp: last = BuildState.segment([])
      default: last = []
      }
      guard taken != nil || !last.isEmpty else { return }
      let path = directory + "/state"
      let files = disk.files
      do {
        try files.makeDirectories(directory)
        // Appended while the file stays within a quarter (and 4 KiB) of its last whole write,
        // so a read costs at most that much more; a save that changes most records writes it
        // whole at once.
        let segment =
          (taken.map { taken in BuildState.segment(taken.changed.map { ($0, taken.state.tasks[$0]) }) } ?? [])
        if !file.writeWhole, let known = file.stamp, let current = files.status(path, follow: true)?.stamp,
          current == known,
          Int(current.size) + segment.count + last.count <= file.wholeBytes + file.wholeBytes / 4 + 4096
        {
          try files.append(path, segment + last)
        } else {
          let whole = (taken?.state ?? mutable.withLock { $0.state }).encoded()
          try files.replace(path, with: whole + last)
          file.wholeBytes = whole.count
          file.writeWhole = false
        }
        file.stamp = files.status(path, follow: true)?.stamp
        if case .record = ending {
          file.endsWithNoOp = true
          // Where runners before state format 6 kept the record.
          files.removeFile(directory + "/noop")
        } else {
          file.endsWithNoOp = false
        }
      } catch {
        // What this save held is not in the file: the next save (if any) writes every record.
        file.writeWhole = true
        if taken != nil { mutable.withLock { $0.dirty = true } }
        warn("cannot write the incremental state: \(error)")
      }
    }
  }

  /// The end of a run: save the state, and bound the cache if this run added to it.
  ///
  /// - Parameter noOp: the record of this run if every task succeeded (nil voids the last one).
  package func finish(noOp: NoOpRecord? = nil) {
    prefetch.stop()
    save(ending: noOp.map(Ending.record) ?? .noRecord)
    let added = mutable.withLock { $0.storedBytes }
    if settings.useCache, added > 0 { cache.bound(added: added) }
  }

  /// Starts checking the sources of the selection's cacheable tasks on another thread,
  /// dependencies first, as the scheduler will reach them.
  package func startPrefetch(_ selection: GraphSelection, workingDirectory: (Int) -> String) {
    // A task the last run's record vouches for, with dependencies it vouches for too, is
    // checked by `settled`, from the record (one behind a group or a task that always runs
    // is judged in full: the prefetch helps it).
    let graph = selection.graph
    let order = selection.members.filter { task in
      graph[task].isCacheable
        && !(vouched[graph[task].name] != nil && graph.dependencies[task].allSatisfy { vouched[graph[$0].name] != nil })
    }
    .sorted { (selection.stage[$0], $0) < (selection.stage[$1], $1) }
    guard order.count > 1 else { return }
    prefetch.start(
      order.map { task in
        .init(
          index: task, task: graph[task], workingDirectory: workingDirectory(task),
          dependencies: graph.dependencies[task].map { graph[$0].name })
      }, store: self)
  }

  /// `--clean-cache`: removes `.runner/cache`.
  package static func cleanCache(directory: String) {
    CacheFileSystem.removeTree(directory + "/cache")
  }
}
