import RunnerModel

/// The part of a task's fingerprint that needs neither its dependencies' results nor its
/// environment: the digest of its operation, its source files found and hashed, and its
/// recorded output files hashed again (the part that reads the file system).
package struct SourceCheck: Sendable {
  /// Digest of the operation: commands or image steps.
  var operation: String
  var walk: SourceWalk?
  var sources: [FileRecord]
  /// The files the depfile named at the last run, hashed now; nil without a depfile or a run.
  var discovered: [FileRecord]?
  /// The recorded output files as they are now (nil until someone asks, or without a record).
  package var outputs: [FileRecord]?
  /// The whole fingerprint, if worked out ahead (`SourcePrefetch`).
  var expected: FingerprintExpectation?
  /// The record the check was made against, when made ahead (`SourcePrefetch`): only the
  /// task's own run replaces it, after taking the check.
  package var record: TaskRecord?

  /// Expands the task's source patterns (re-using the recorded walk while it holds) and hashes
  /// the files (re-using recorded hashes of files whose stamps are unchanged).
  ///
  /// - Parameters:
  ///   - outputs: also hash the recorded output files.
  ///   - verdict: how the record's files compared with the file system, earlier in this run
  ///     (`RecordChecks`); only for a check that is handed out while no file has changed.
  init(
    task: TaskDefinition, workingDirectory: String, previous: TaskRecord?, outputs: Bool = false,
    verdict: RecordChecks.Verdict? = nil, disk: Disk
  ) {
    let groups = Fingerprint.sourceGroups(of: task)
    // One group (most tasks) keys the walk by its patterns as before; groups are kept apart.
    let patterns = groups.count == 1 ? groups[0] : groups.flatMap { $0 + ["\u{0}"] }
    let key = SourceWalk.key(patterns: patterns, directory: workingDirectory)
    let verdict = verdict.flatMap {
      $0.fingerprint != nil && $0.fingerprint == previous.flatMap(\.fingerprint) && $0.directory == workingDirectory
        ? $0 : nil
    }
    let paths: [String]
    var reused = false
    if let previous, let walk = previous.walk, walk.key == key,
      verdict?.walkHolds ?? walk.holds(in: disk.files, judge: disk.judge())
    {
      paths = previous.sources.map(\.path)
      self.walk = walk
      reused = true
    } else {
      var recorder: SourceWalk.Recorder? = SourceWalk.Recorder(judge: disk.judge(), files: disk.files)
      if groups.count == 1 {
        paths = SourceGlob.expand(groups[0], in: workingDirectory, recording: &recorder)
      } else {
        var found = Set<String>()
        for group in groups { found.formUnion(SourceGlob.expand(group, in: workingDirectory, recording: &recorder)) }
        paths = found.sorted()
      }
      self.walk = recorder?.finish(key: key)
    }
    if reused, verdict?.sourcesHold == true, let previous {
      sources = previous.sources
      discovered = task.discoversInputs ? previous.discovered : nil
    } else {
      sources = Fingerprint.hashFiles(paths, in: workingDirectory, previous: previous?.sources ?? [], disk: disk)
      if task.discoversInputs, let recorded = previous?.discovered {
        discovered = Fingerprint.hashFiles(
          recorded.map(\.path), in: workingDirectory, previous: recorded, disk: disk)
      }
    }
    operation = Fingerprint.operationDigest(task)
    if outputs, let previous {
      self.outputs =
        verdict?.outputsHold == true
        ? previous.outputs
        : Fingerprint.hashFiles(
          previous.outputs.map(\.path), in: workingDirectory, previous: previous.outputs, disk: disk)
    }
  }
}
