/// The part of a task's fingerprint that needs neither its dependencies' results nor its
/// environment: the digests of its operation and patterns, its source files found and hashed,
/// and its recorded output files hashed again (the part that reads the file system).
struct SourceCheck: Sendable {
  /// Digest of the operation: commands or image steps.
  var operation: String
  /// Digest of the `sources` and `outputs` patterns and of the source files' paths and hashes.
  var digest: String
  var walk: SourceWalk?
  var sources: [FileRecord]
  /// The recorded output files as they are now (nil until someone asks, or without a record).
  var outputs: [FileRecord]?

  /// Expands the task's source patterns (re-using the recorded walk while it holds) and hashes
  /// the files (re-using recorded hashes of files whose stamps are unchanged).
  ///
  /// - Parameter outputs: also hash the recorded output files.
  init(task: TaskDefinition, workingDirectory: String, previous: TaskRecord?, outputs: Bool = false) {
    let patterns = Fingerprint.sourcePatterns(of: task)
    let key = SourceWalk.key(patterns: patterns, directory: workingDirectory)
    let paths: [String]
    if let previous, let walk = previous.walk, walk.key == key, walk.holds() {
      paths = previous.sources.map(\.path)
      self.walk = walk
    } else {
      var recorder: SourceWalk.Recorder? = SourceWalk.Recorder()
      paths = SourceGlob.expand(patterns, in: workingDirectory, recording: &recorder)
      self.walk = recorder?.finish(key: key)
    }
    sources = Fingerprint.hashFiles(paths, in: workingDirectory, previous: previous?.sources ?? [])
    operation = Fingerprint.operationDigest(task)
    var hasher = ContentHasher()
    hasher.add(Fingerprint.patternDigest(task))
    hasher.add(Int64(sources.count))
    for file in sources {
      hasher.add(file.path)
      hasher.add(file.hash)
    }
    digest = hasher.finalize()
    if outputs, let previous {
      self.outputs = Fingerprint.hashFiles(
        previous.outputs.map(\.path), in: workingDirectory, previous: previous.outputs)
    }
  }
}
