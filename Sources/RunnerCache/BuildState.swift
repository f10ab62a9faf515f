import RunnerBasics
import RunnerModel

/// What runner remembers between runs (`.runner/state`): for each task, the fingerprint of its
/// last successful run, the pieces it was made of (to say why a task re-runs), and the files
/// it read and wrote with their content hashes and `stat` stamps.
///
/// Content hashes are the truth; a stamp only lets a later run skip re-hashing a file whose
/// `stat` is unchanged (as ninja trusts mtimes). A file `Disk` cannot vouch for (changed
/// in the same tick of the file system's clock as it was hashed) gets no stamp, so a change
/// within the file system's timestamp granularity is never missed.
package struct BuildState: Sendable {
  static let formatVersion = 7
  /// Versions before, whose records (4: with no `D` lines) read as they are.
  static let previousVersions = [4, 5, 6]

  package var tasks: [String: TaskRecord] = [:]
}

/// One file a task read or wrote.
package struct FileRecord: Sendable, Equatable {
  /// As the pattern spells it: relative to the task's directory, or absolute.
  package var path: String
  /// The content as hashed; nil for a literal path with no regular file there.
  package var content: ContentDigest?
  /// The owner may execute it (REAPI's `is_executable`; a `chmod +x` changes the key).
  package var executable: Bool
  package var stamp: CacheFileSystem.Stamp?

  package init(
    path: String, content: ContentDigest?, executable: Bool = false, stamp: CacheFileSystem.Stamp? = nil
  ) {
    self.path = path
    self.content = content
    self.executable = executable
    self.stamp = stamp
  }

  /// A record of content with this hash and size.
  package init(
    path: String, hash: String, size: Int64 = 0, executable: Bool = false, stamp: CacheFileSystem.Stamp? = nil
  ) {
    self.init(path: path, content: ContentDigest(hash: hash, size: size), executable: executable, stamp: stamp)
  }

  /// What the key hashes for the content: its hash, or `missing` (never a SHA-256 in hex).
  var hashText: String { content?.hash ?? "missing" }
}

/// The last successful run of one task.
package struct TaskRecord: Sendable {
  /// nil for a task that is not cacheable: its record keeps only what it handed on, so a dry
  /// run can predict its dependents' fingerprints.
  package var fingerprint: String?
  /// Digest of the operation: commands or image steps.
  var operation: String
  package var directory: String
  /// Digest of the environment the task saw.
  var environment: String
  /// Digest of the dependencies' fingerprints and outputs.
  var dependencies: String
  package var sources: [FileRecord]
  package var outputs: [FileRecord]
  /// `$RUNNER_OUTPUT` values (or an image task's), sorted by key.
  package var values: [(key: String, value: String)]
  /// Digest of everything the task hands to dependents: values, output files, image pixels.
  package var outputDigest: String
  /// How `sources` were found, so an unchanged tree need not be walked again.
  package var walk: SourceWalk? = nil
  /// The files the task's depfile named after its last run, as it spells them (relative to the
  /// task's directory, or absolute); nil for a task without one.
  package var discovered: [FileRecord]? = nil
  /// How the run that made the record ended (nil for a task that is not cacheable, or a
  /// record of an older runner), and why the task was not up to date then (`RunReason`).
  package var outcome: Outcome? = nil
  package var why = ""
  /// Short digests of each keyed variable and each dependency's contribution (`InputDigests`),
  /// so that a later run can name the one that changed.
  package var variables = ""
  package var inputs = ""

  package init(
    fingerprint: String?, operation: String, directory: String, environment: String, dependencies: String,
    sources: [FileRecord], outputs: [FileRecord], values: [(key: String, value: String)], outputDigest: String,
    walk: SourceWalk? = nil, discovered: [FileRecord]? = nil
  ) {
    self.discovered = discovered
    self.fingerprint = fingerprint
    self.operation = operation
    self.directory = directory
    self.environment = environment
    self.dependencies = dependencies
    self.sources = sources
    self.outputs = outputs
    self.values = values
    self.outputDigest = outputDigest
    self.walk = walk
  }
}
