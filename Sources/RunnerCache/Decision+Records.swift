import RunnerModel

/// The engine's one judgement of a task against its record, made alike by a run
/// (`CachingOperation`), a dry run and `--describe` (`IncrementalPlanner`) and `--explain`:
/// up to date, with its recorded outputs as they are now, or not, with the first reason why.
/// (Whether a task that is not up to date is restored or runs is the cache's answer after.)
package enum Judgement: Sendable {
  case upToDate(outputs: [FileRecord])
  case stale(RunReason)

  /// Why the task is not up to date; nil when it is.
  package var reason: RunReason? {
    switch self {
    case .upToDate: return nil
    case .stale(let reason): return reason
    }
  }

  /// Judges `fingerprint` (the task's key now) against `record`: its key as recorded, then its
  /// recorded output files as they were left — hashed again in `directory` (only once the key
  /// holds) unless `outputs` has them as they are now — then, for an image task, its image in
  /// the cache (`imageCached`), where alone the image is kept.
  package static func of(
    _ record: TaskRecord?, _ fingerprint: Fingerprint, task: TaskDefinition, directory: String,
    outputs: [FileRecord]? = nil, disk: Disk, imageCached: () -> Bool
  ) -> Judgement {
    guard let record, record.fingerprint == fingerprint.value else {
      return .stale(RunReason.between(record, fingerprint, task: task))
    }
    let now =
      outputs
      ?? Fingerprint.hashFiles(record.outputs.map(\.path), in: directory, previous: record.outputs, disk: disk)
    if let reason = RunReason.outputs(now: now, recorded: record.outputs) { return .stale(reason) }
    if case .image = task.action, !imageCached() { return .stale(.imageNotCached) }
    return .upToDate(outputs: now)
  }
}

extension IncrementalStore {
  /// `Judgement.of` with this run's disk and cache (no cache with `--no-cache`: an image task
  /// then always runs).
  package func judge(
    _ task: TaskDefinition, record: TaskRecord?, fingerprint: Fingerprint, directory: String,
    outputs: [FileRecord]? = nil
  ) -> Judgement {
    Judgement.of(record, fingerprint, task: task, directory: directory, outputs: outputs, disk: disk) {
      settings.useCache && cache.contains(fingerprint.value)
    }
  }
}

extension RunReason {
  /// Why `fingerprint` differs from `record`'s, naming the first changed file, variable or
  /// dependency where the record says enough.
  package static func between(_ record: TaskRecord?, _ fingerprint: Fingerprint, task: TaskDefinition) -> RunReason {
    guard let record, record.fingerprint != nil else { return .noRecord }
    if record.operation != fingerprint.operation {
      if case .image = task.action { return .commandChanged(image: true, calls: false) }
      return .commandChanged(image: false, calls: task.wholeTask != nil)
    }
    if record.directory != fingerprint.directory { return .directoryChanged }
    if record.environment != fingerprint.environment {
      // A record of an older runner kept no digests to compare.
      return .environmentChanged(
        record.outcome == nil
          ? nil : InputDigests.firstDifference(record.variables, InputDigests.variables(fingerprint.environmentValues)))
    }
    let before = Dictionary(record.sources.map { ($0.path, $0) }, uniquingKeysWith: { $1 })
    var changes: [SourceChange] = []
    var found = Set<String>()
    for file in fingerprint.sources {
      found.insert(file.path)
      if let old = before[file.path] {
        if old.content?.hash != file.content?.hash {
          changes.append(SourceChange(path: file.path, kind: .changed))
        } else if old.executable != file.executable {
          changes.append(SourceChange(path: file.path, kind: .mode(executable: file.executable)))
        }
      } else {
        changes.append(SourceChange(path: file.path, kind: .added))
      }
    }
    for file in record.sources where !found.contains(file.path) {
      changes.append(SourceChange(path: file.path, kind: .removed))
    }
    if task.discoversInputs {
      guard let recorded = record.discovered, let now = fingerprint.discovered else { return .readsNotRecorded }
      // The same paths, hashed again: a file it named changed, or is gone.
      for (old, file) in zip(recorded, now) where !found.contains(file.path) {
        if old.content?.hash != file.content?.hash {
          let kind: SourceChange.Kind = file.content == nil ? .removed : old.content == nil ? .added : .changed
          changes.append(SourceChange(path: file.path, kind: kind))
        } else if old.executable != file.executable {
          changes.append(SourceChange(path: file.path, kind: .mode(executable: file.executable)))
        }
      }
    }
    if let first = changes.first { return .sourceChanged(first, more: changes.count - 1) }
    if record.dependencies != fingerprint.dependencies {
      return .dependencyChanged(
        record.outcome == nil
          ? nil : InputDigests.firstDifference(record.inputs, InputDigests.dependencies(fingerprint.dependencyList)))
    }
    return .patternsChanged
  }

  /// The first recorded output file that is missing or not as recorded, if one is.
  package static func outputs(now: [FileRecord], recorded: [FileRecord]) -> RunReason? {
    guard let (file, _) = zip(now, recorded).first(where: { $0.content?.hash != $1.content?.hash || $0.content == nil })
    else { return nil }
    return file.content == nil ? .outputMissing(file.path) : .outputChanged(file.path)
  }
}

/// Short digests of each keyed variable and each dependency's contribution, kept in a record
/// so that a later run can name which one changed (the key holds only their digest together).
/// Encoded as `name=digest` entries separated by U+001F, which no name contains.
package enum InputDigests {
  static let separator: Character = "\u{1F}"

  /// Each variable's name and a short digest of its value.
  package static func variables(_ environment: [(name: String, value: String)]) -> String {
    encode(environment.map { ($0.name, short([$0.value])) })
  }

  /// Each dependency's name and a short digest of what stands in for it.
  package static func dependencies(_ dependencies: [Fingerprint.Dependency]) -> String {
    encode(dependencies.map { ($0.name, short([$0.fingerprint ?? "-", $0.outputDigest])) })
  }

  static func short(_ parts: [String]) -> String {
    var hasher = ContentHasher()
    for part in parts { hasher.add(part) }
    return String(hasher.finalize().prefix(12))
  }

  static func encode(_ entries: [(String, String)]) -> String {
    entries.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(separator: String(separator))
  }

  static func decode(_ text: String) -> [String: String] {
    var entries: [String: String] = [:]
    for entry in text.split(separator: separator) {
      guard let equals = entry.lastIndex(of: "=") else { continue }
      entries[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
    }
    return entries
  }

  /// The first name (in order) whose digest differs, or that one side lacks; nil when the
  /// record kept none (a record of an older runner) or none differs.
  static func firstDifference(_ recorded: String, _ now: String) -> String? {
    guard !recorded.isEmpty || !now.isEmpty else { return nil }
    let before = decode(recorded)
    let after = decode(now)
    return Set(before.keys).union(after.keys).sorted().first { before[$0] != after[$0] }
  }
}
