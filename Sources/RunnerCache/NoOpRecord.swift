import Dispatch
import Glibc
import RunnerBasics
import RunnerModel
import Synchronization

/// The record of the last run, kept as the last segment of the state log (`.runner/state`):
/// which tasks it left up to date, and the stamps that say they still are. When it vouches for
/// every task, the same run again can reach the same conclusion from `stat`s alone: no parse
/// of the task file into tasks, no fingerprints, no scheduler (ninja's no-op is the same idea:
/// trust the log while every `stat` agrees). When it vouches for some (a task that just ran has
/// outputs too new to trust), the store finds the others up to date from it
/// (`IncrementalStore.vouched`), without their fingerprints.
///
/// It is sound because the key pins everything a fingerprint is made of except files: this
/// runner binary, the directory, the arguments and the environment; beside it, the task file
/// is pinned by its bytes or, when they differ, by its YAML content (`TaskFileDigests`), so a
/// comment added to the file does not void the record. The files are those of the tasks'
/// records in the same log — their source walks, and the trusted stamps of their sources and
/// outputs — and the record holds only while it is the log's last segment: a run that changed
/// a record appended after it (and a record of its own), and one that ends without a record
/// appends an empty segment. Any difference, and the run takes the full path.
package struct NoOpRecord: Sendable, Equatable {
  /// One task as the run finished it, in the order it did.
  package struct Task: Sendable, Equatable {
    /// The name of its record in the state; nil for a group (shown with its time).
    package var record: String?
    /// Its name as the console showed it (secrets masked).
    package var shown: String
    /// The fingerprint of its record: a record changed since cannot pass for it.
    package var fingerprint: String

    package init(record: String?, shown: String, fingerprint: String = "") {
      self.record = record
      self.shown = shown
      self.fingerprint = fingerprint
    }
  }

  package struct File: Sendable, Equatable {
    /// The full path, or one relative to runner's working directory.
    package var path: String
    package var stamp: CacheFileSystem.Stamp

    package init(path: String, stamp: CacheFileSystem.Stamp) {
      self.path = path
      self.stamp = stamp
    }
  }

  /// `invocationKey` of the run.
  package var key: String
  /// The tasks the record vouches for, and its groups, in the order they finished.
  package var tasks: [Task]
  /// The names shown of the selected tasks it does not vouch for (a file of their records too
  /// new to trust, or no record of how their sources were found): a record with any is never
  /// replayed, and the store judges those tasks in full.
  package var unvouched: [String] = []
  /// The task file the record was made with.
  package var taskFile: TaskFileDigests
  /// The most tasks the run would have run at once, as its events file says (0: not recorded).
  package var concurrency: Int
  /// The files of the tasks' records changed last, newest first (`recentCount` at most): a file
  /// being edited was usually edited before the last run too, so checking these first, from
  /// the end of the log alone, turns most edit-and-run cycles away in a few `stat`s.
  package var recent: [File]

  package init(
    key: String, taskFile: TaskFileDigests = TaskFileDigests(bytes: "", content: ""), tasks: [Task],
    unvouched: [String] = [], recent: [File] = [], concurrency: Int = 0
  ) {
    self.key = key
    self.concurrency = concurrency
    self.taskFile = taskFile
    self.tasks = tasks
    self.unvouched = unvouched
    self.recent = recent
  }

  /// Whether it vouches for every task of its run: only then may a run be concluded from it.
  package var isComplete: Bool { unvouched.isEmpty }

  /// How many of the most recently changed files the record repeats.
  static let recentCount = 64

  /// A task file, by the SHA-256 of its bytes and of its YAML content
  /// (`YAMLParser.canonicalContent`).
  package struct TaskFileDigests: Sendable, Equatable {
    package var bytes: String
    package var content: String

    package init(bytes: String, content: String) {
      self.bytes = bytes
      self.content = content
    }

    /// The digest of the file's bytes.
    package static func bytes(_ bytes: [UInt8]) -> String {
      var hasher = ContentHasher()
      bytes.withUnsafeBytes { hasher.add(bytes: $0) }
      return hasher.finalize()
    }

    /// The digest of its YAML content; nil when it is not well-formed YAML.
    package static func content(_ bytes: [UInt8]) -> String? {
      guard let canonical = YAMLParser.canonicalContent(bytes) else { return nil }
      var hasher = ContentHasher()
      canonical.withUnsafeBytes { hasher.add(bytes: $0) }
      return hasher.finalize()
    }

    /// Both digests of `bytes`.
    package init?(of bytes: [UInt8]) {
      guard let content = Self.content(bytes) else { return nil }
      self.init(bytes: Self.bytes(bytes), content: content)
    }
  }

  /// Everything besides the files and the state that decides how a run turns out.
  ///
  /// - Parameters:
  ///   - taskFile: the task file's path as given (its content is pinned beside the key).
  ///   - arguments: the command line, without the program's name.
  /// - Returns: nil when runner cannot tell which build of itself is running (no /proc).
  package static func invocationKey(taskFile path: String, arguments: [String]) -> String? {
    // Another build of runner may decide differently.
    guard let executable = CacheFileSystem.status("/proc/self/exe")?.stamp else { return nil }
    var hasher = ContentHasher()
    hasher.add("runner-noop \(BuildState.formatVersion)")
    for field in BuildState.fields(of: executable) { hasher.add(field) }
    if let directory = getcwd(nil, 0) {
      hasher.add(String(cString: directory))
      free(directory)
    }
    hasher.add(path)
    hasher.add(Int64(arguments.count))
    for argument in arguments { hasher.add(argument) }
    hasher.add(Fingerprint.wholeEnvironmentDigest(ProcessEnvironment.current))
    return hasher.finalize()
  }

  /// The files of the records, newest first, `recentCount` at most (first met first among equals).
  package static func recentFiles(_ files: some Sequence<File>) -> [File] {
    var kept: [(time: Int64, file: File)] = []
    for file in files {
      let time = max(file.stamp.modified, file.stamp.changed)
      if kept.count == Self.recentCount, time <= kept[kept.count - 1].time { continue }
      let place = kept.firstIndex { $0.time < time } ?? kept.count
      kept.insert((time, file), at: place)
      if kept.count > Self.recentCount { kept.removeLast() }
    }
    return kept.map(\.file)
  }

  /// The files a task's record rests on, with their stamps, or nil when one has none (a file
  /// too new to trust, or no record of how its sources were found).
  ///
  /// - Parameter base: the task file's directory, which a record's directory is relative to.
  package static func files(of record: TaskRecord, base: String) -> [File]? {
    guard record.fingerprint != nil, record.walk != nil else { return nil }
    let directory = record.workingDirectory(base: base)
    var files: [File] = []
    // A path found absent is checked apart (`absentPathsHold`): it has no stamp.
    let discovered = (record.discovered ?? []).filter { $0.content != nil || $0.stamp != nil }
    files.reserveCapacity(record.sources.count + discovered.count + record.outputs.count)
    for file in record.sources + discovered + record.outputs {
      guard let stamp = file.stamp else { return nil }
      files.append(File(path: FilePath.resolve(file.path, in: directory), stamp: stamp))
    }
    return files
  }

  /// Whether every task's record is in `state`, and every walk and file as recorded, checked
  /// on two threads.
  ///
  /// - Parameter abandoned: checked between tasks; once true, the check stops and fails.
  package func holds(
    in state: BuildState, base: String, unless abandoned: @Sendable () -> Bool = { false }
  ) -> Bool {
    guard isComplete else { return false }
    final class Verdict: Sendable {
      let failed = Atomic<Bool>(false)
    }
    let verdict = Verdict()
    let half = (tasks.count + 1) / 2
    DispatchQueue.concurrentPerform(iterations: 2) { part in
      for task in tasks[part == 0 ? 0..<half : half..<tasks.count] {
        if verdict.failed.load(ordering: .relaxed) { return }
        if abandoned() {
          verdict.failed.store(true, ordering: .relaxed)
          return
        }
        guard let name = task.record else { continue }
        guard let record = state.tasks[name], record.fingerprint == task.fingerprint,
          let files = Self.files(of: record, base: base), record.walk?.holds(in: LocalFileSystem(), judge: nil) == true,
          files.allSatisfy({ $0.stamp.holds(at: $0.path) }), record.absentPathsHold(base: base)
        else {
          verdict.failed.store(true, ordering: .relaxed)
          return
        }
      }
    }
    return !verdict.failed.load(ordering: .relaxed)
  }
}

extension TaskRecord {
  /// What stands in for the task in its dependents' keys while this record holds
  /// (`Fingerprint.standIn`).
  package func standIn(declaresOutputs: Bool) -> String? {
    Fingerprint.standIn(fingerprint: fingerprint, dependencies: dependencies, declaresOutputs: declaresOutputs)
  }

  /// Whether every path its run looked up in vain (a discovered input with neither content nor
  /// stamp) is still not there.
  package func absentPathsHold(base: String) -> Bool {
    guard let discovered else { return true }
    let directory = workingDirectory(base: base)
    return discovered.allSatisfy { file in
      file.content != nil || file.stamp != nil
        || CacheFileSystem.status(FilePath.resolve(file.path, in: directory), follow: true) == nil
    }
  }

  /// The directory the task ran in, from the task file's directory `base`.
  package func workingDirectory(base: String) -> String {
    directory == "." ? base : FilePath.resolve(directory, in: base)
  }
}
