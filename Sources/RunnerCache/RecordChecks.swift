import RunnerBasics
import Synchronization

/// The files each recorded task read and wrote, compared with the file system as soon as the
/// state is read: on the preload's thread, while the task file is still being parsed, a core
/// that would otherwise wait does the `stat`s a run of up-to-date tasks is made of.
///
/// A verdict is only an observation. `SourcePrefetch` uses it, and the prefetch's rule keeps
/// it sound: a check is handed out only while no task of the run has started changing files,
/// so every observation it rests on was made before any change.
final class RecordChecks: Sendable {
  /// What one record's files looked like.
  struct Verdict: Sendable, Equatable {
    /// The fingerprint of the record that was checked.
    var fingerprint: String?
    /// The working directory its relative paths were taken from.
    var directory: String
    /// Every listing and probe of the record's source walk still holds.
    var walkHolds: Bool
    /// Every source file has a recorded stamp, and its stamp now is the same.
    var sourcesHold: Bool
    /// The same for every output file.
    var outputsHold: Bool
  }

  /// One record's check: open, being checked here, done, or left to the prefetch.
  private final class Entry: Sendable {
    static let open: UInt8 = 0
    static let checking: UInt8 = 1
    static let done: UInt8 = 2
    static let claimed: UInt8 = 3

    let record: TaskRecord
    let stage = Atomic<UInt8>(Entry.open)
    let verdict = Mutex<Verdict?>(nil)

    init(_ record: TaskRecord) { self.record = record }
  }

  private let entries: [String: Entry]
  private let order: [Entry]
  private let stopped = Atomic<Bool>(false)
  /// The task file's directory: the working directory of a task without `dir`.
  let base: String

  /// - Parameter first: the record of the last run: its tasks are checked first, in the order
  ///   they finished then, which is close to the order the scheduler reaches them in.
  init(_ state: BuildState, base: String, first: NoOpRecord? = nil) {
    self.base = base
    var entries: [String: Entry] = [:]
    entries.reserveCapacity(state.tasks.count)
    var order: [Entry] = []
    order.reserveCapacity(state.tasks.count)
    func add(_ name: String, _ record: TaskRecord) {
      guard record.fingerprint != nil, entries[name] == nil else { return }
      let entry = Entry(record)
      entries[name] = entry
      order.append(entry)
    }
    for name in first?.tasks.compactMap(\.record) ?? [] {
      if let record = state.tasks[name] { add(name, record) }
    }
    for (name, record) in state.tasks { add(name, record) }
    self.entries = entries
    self.order = order
  }

  /// Checks every record not claimed yet, until done or stopped.
  func run() {
    for entry in order {
      if stopped.load(ordering: .relaxed) { return }
      guard
        entry.stage.compareExchange(expected: Entry.open, desired: Entry.checking, ordering: .acquiring).exchanged
      else { continue }
      let verdict = Self.verdict(of: entry.record, base: base)
      entry.verdict.withLock { $0 = verdict }
      entry.stage.store(Entry.done, ordering: .releasing)
    }
  }

  /// Stops `run` at the next record (the run has started changing files, or is over).
  func stop() {
    stopped.store(true, ordering: .relaxed)
  }

  /// The verdict on a task's record if it is ready; otherwise nil, and the record is left
  /// to the caller (`run` skips it from now on).
  func take(_ name: String) -> Verdict? {
    guard let entry = entries[name] else { return nil }
    let (exchanged, stage) = entry.stage.compareExchange(
      expected: Entry.open, desired: Entry.claimed, ordering: .acquiring)
    guard !exchanged, stage == Entry.done else { return nil }
    return entry.verdict.withLock { $0 }
  }

  /// The verdict on a task's record: the one made ahead if it is ready, otherwise made now
  /// (and `run` skips it from now on); nil for a task with no record checked here.
  func verdict(of name: String) -> Verdict? {
    guard let entry = entries[name] else { return nil }
    let (exchanged, stage) = entry.stage.compareExchange(
      expected: Entry.open, desired: Entry.claimed, ordering: .acquiring)
    if !exchanged, stage == Entry.done { return entry.verdict.withLock { $0 } }
    return Self.verdict(of: entry.record, base: base)
  }

  /// Compares a record's walk, sources (with the files its depfile named) and outputs with the
  /// file system.
  static func verdict(of record: TaskRecord, base: String) -> Verdict {
    let directory = record.workingDirectory(base: base)
    func holds(_ files: [FileRecord]) -> Bool {
      files.allSatisfy { file in
        guard let stamp = file.stamp else { return false }
        let full = FilePath.resolve(file.path, in: directory)
        return stamp.holds(at: full)
      }
    }
    let walkHolds = record.walk?.holds(in: LocalFileSystem(), judge: nil) ?? false
    return Verdict(
      fingerprint: record.fingerprint, directory: directory, walkHolds: walkHolds,
      sourcesHold: walkHolds && holds(record.sources)
        && holds((record.discovered ?? []).filter { $0.content != nil || $0.stamp != nil })
        && record.absentPathsHold(base: base),
      outputsHold: holds(record.outputs))
  }
}
