import RunnerModel
import Synchronization

/// What the store works out ahead of the scheduler, and the one way the rest of runner reaches
/// it. Three steps, each paying for itself on a large graph, none visible outside the store:
/// the state file read (and its records' files compared with the file system, `RecordChecks`)
/// on a thread started before the task file is parsed (`StatePreload`); then each task's
/// sources checked and its fingerprint worked out on another core, dependencies first,
/// assuming each dependency hands on what its record says (`SourcePrefetch`,
/// `FingerprintExpectation`). What was worked out ahead is used only while nothing of the run
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
