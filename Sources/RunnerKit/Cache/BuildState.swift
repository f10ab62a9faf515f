/// What runner remembers between runs (`.runner/state`): for each task, the fingerprint of its
/// last successful run, the pieces it was made of (to say why a task re-runs), and the files
/// it read and wrote with their content hashes and `stat` stamps.
///
/// Content hashes are the truth; a stamp only lets a later run skip re-hashing a file whose
/// `stat` is unchanged (as ninja trusts mtimes). A file changed within `FileRecord.trustWindow`
/// of being hashed gets no stamp, so a change within the file system's timestamp granularity
/// is never missed.
struct BuildState: Sendable {
  static let formatVersion = 2

  var tasks: [String: TaskRecord] = [:]
}

/// One file a task read or wrote.
struct FileRecord: Sendable, Equatable {
  /// Nanoseconds: a file modified this recently when hashed is re-hashed next time.
  static let trustWindow: Int64 = 2_000_000_000

  /// As the pattern spells it: relative to the task's directory, or absolute.
  var path: String
  /// SHA-256 of the content; `missing` for a literal path that does not exist.
  var hash: String
  var stamp: CacheFileSystem.Stamp?

  static let missing = "missing"
}

/// The last successful run of one task.
struct TaskRecord: Sendable {
  var fingerprint: String
  /// Digest of the operation: commands or image steps.
  var operation: String
  var directory: String
  /// Digest of the environment the task saw.
  var environment: String
  /// Digest of the dependencies' fingerprints and outputs.
  var dependencies: String
  var sources: [FileRecord]
  var outputs: [FileRecord]
  /// `$RUNNER_OUTPUT` values (or an image task's), sorted by key.
  var values: [(key: String, value: String)]
  /// Digest of everything the task hands to dependents: values, output files, image pixels.
  var outputDigest: String
  /// How `sources` were found, so an unchanged tree need not be walked again.
  var walk: SourceWalk? = nil
}
