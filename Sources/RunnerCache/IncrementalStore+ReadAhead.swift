import RunnerModel
import Synchronization

/// What the store works out ahead of the scheduler, and the one way the rest of runner reaches
/// it. Three steps, each paying for itself on a large graph, none visible outside the store:
/// the state file read (and its records' files compared with the file system, `RecordChecks`,
/// those of the last run's record first) on a thread started before the task file is parsed
/// (`StatePreload`); the tasks that record vouches for found up to date from it alone
/// (`settled`); then each other task's sources checked and its fingerprint worked out on
/// another core, dependencies first, assuming each dependency hands on what its record says
/// (`SourcePrefetch`, `FingerprintExpectation`). What was worked out ahead is used only while nothing of the run
/// may have changed a file (`noteChange`: before any process the run starts, and before a
/// task found not up to date restores or runs): until then the files are as the read-ahead
/// saw them.
extension IncrementalStore {
  /// The state reads started ahead, by state directory, each taken by the store made for it.
  private static let readingAhead = Mutex<[String: StatePreload]>([:])

  /// Starts reading `directory/state` on a thread of its own, for the store that a run makes
  /// for `directory` later (it uses the read only if the file is still the one read).
  ///
  /// - Parameter base: the task file's directory. Given it, the thread goes on to compare the
  ///   records' files with the file system (without it, as for `--force`, it does not).
  package static func readAhead(directory: String, base: String?) {
    readAhead(StatePreload(directory: directory, base: base))
  }

  static func readAhead(_ preload: StatePreload) {
    readingAhead.withLock { $0[preload.directory] = preload }
  }

  /// The read started ahead for `directory`, if there is one (taken: a later store reads again).
  static func takeReadAhead(_ directory: String) -> StatePreload? {
    readingAhead.withLock { $0.removeValue(forKey: directory) }
  }

  /// Forgets a read started ahead that no store took (the run ended before it made one): what
  /// it saw may be old by the time a later store of the same process is made.
  package static func dropReadAhead(directory: String) {
    _ = takeReadAhead(directory)
  }

  /// A task is about to run, restore or execute remotely: nothing worked out ahead may be used
  /// from now on.
  package func noteChange() {
    prefetch.noteChange()
  }

  /// The tasks `record` vouches for, by name, with the fingerprints their records had, and the
  /// task file's digests when its bytes are the ones recorded; none unless it is the record of
  /// this very invocation and task file.
  static func vouched(by record: NoOpRecord?, settings: CacheSettings) -> (
    tasks: [String: String], taskFile: NoOpRecord.TaskFileDigests?
  ) {
    guard let record, let invocation = settings.noOpInvocation, record.key == invocation else { return ([:], nil) }
    let file = settings.noOpTaskFile
    let sameBytes = record.taskFile.bytes == NoOpRecord.TaskFileDigests.bytes(file)
    guard sameBytes || record.taskFile.content == NoOpRecord.TaskFileDigests.content(file) else { return ([:], nil) }
    var vouched: [String: String] = [:]
    vouched.reserveCapacity(record.tasks.count)
    for task in record.tasks {
      if let name = task.record { vouched[name] = task.fingerprint }
    }
    return (vouched, sameBytes ? record.taskFile : nil)
  }

  /// The digests of the task file a run loaded (`CacheSettings.noOpTaskFile`): the last
  /// record's when the bytes are the same, without a pass over the file's YAML.
  package var taskFileDigests: NoOpRecord.TaskFileDigests? {
    recordedTaskFile ?? NoOpRecord.TaskFileDigests(of: settings.noOpTaskFile)
  }

  /// The record of a task found up to date from the record of the last run, without working
  /// out its fingerprint: that record vouches for the task, the task's record is the one it
  /// vouched for, its files are as recorded (compared ahead, or now) while no file of this run
  /// has changed, and each of its dependencies was found up to date so too. What the last run
  /// vouched for is what its fingerprint would find: the invocation and the task file are the
  /// same, so its definition and environment are; its files are; and what its dependencies
  /// hand on is what their unchanged records say.
  ///
  /// - Returns: nil when the task is to be judged in full (`prepare`, `judge`).
  package func settled(_ task: TaskDefinition, workingDirectory: String, dependencies: some Sequence<String>)
    -> TaskRecord?
  {
    guard let fingerprint = vouched[task.name], let checks = prefetch.checks, !prefetch.changed,
      let record = record(task.name), record.fingerprint == fingerprint,
      confirmed.withLock({ confirmed in dependencies.allSatisfy { confirmed.contains($0) } }),
      let verdict = checks.verdict(of: task.name), verdict.fingerprint == fingerprint,
      verdict.directory == workingDirectory, verdict.sourcesHold, verdict.outputsHold,
      // After the verdict: no file of this run had changed when it was made.
      !prefetch.changed
    else { return nil }
    confirmed.withLock { _ = $0.insert(task.name) }
    return record
  }

  /// The task's last record and its fingerprint now, from what was worked out ahead while it
  /// still holds: the sources checked ahead, and the fingerprint worked out ahead when the
  /// dependencies hand on what it assumed.
  ///
  /// - Parameters:
  ///   - index: the task's index in the graph (what the read-ahead knows it by).
  ///   - dependencies: what each dependency hands on (`Fingerprint.contribution`).
  ///   - lookup: a dependency's output value, by the dependency's name and the value's key.
  package func prepare(
    _ task: TaskDefinition, index: Int, workingDirectory: String, dependencies: [Fingerprint.Dependency],
    lookup: (String, String) -> String?
  ) -> (fingerprint: Fingerprint, previous: TaskRecord?, checked: SourceCheck?) {
    let checked = prefetch.take(index)
    let previous = checked.map(\.record) ?? record(task.name)
    if let expected = checked?.expected, expected.holds(for: dependencies) {
      return (expected.fingerprint, previous, checked)
    }
    let fingerprint = Fingerprint(
      task: task, workingDirectory: workingDirectory, environment: keyEnvironment(task, lookup: lookup),
      dependencies: dependencies, previous: previous, checked: checked, disk: disk)
    return (fingerprint, previous, checked)
  }
}
