import RunnerModel

/// The files a task's depfile named, kept in a cache under the key the task has before any
/// depfile is read (its weak key). Where the state holds no record of them (a fresh checkout,
/// a lost state), a run looks up the weak key, hashes the files named here, and looks up the
/// key its result was stored under: BuildXL's two-phase lookup (weak fingerprint, path set,
/// strong fingerprint). The path set is an entry of its own kind: values only, one per file.
package enum PathSet {
  /// The value that marks an entry as a path set (its value: how many files).
  static let marker = "runner-path-set"
  /// Each file's value key: this, then its place, zero-padded so that keys sort in order.
  static let prefix = "runner-path-set/"

  /// The entry that holds `paths`.
  package static func entry(_ paths: [String]) -> CacheEntry {
    var entry = CacheEntry()
    entry.values = [(marker, String(paths.count))]
    for (place, path) in paths.enumerated() {
      let number = String(place)
      entry.values.append((prefix + String(repeating: "0", count: max(0, 8 - number.count)) + number, path))
    }
    return entry
  }

  /// The paths `entry` holds; nil for an entry that is not a whole path set.
  package static func paths(in entry: CacheEntry) -> [String]? {
    guard entry.files.isEmpty, entry.image == nil,
      let count = entry.values.first(where: { $0.key == marker }).flatMap({ Int($0.value) })
    else { return nil }
    let paths = entry.values.filter { $0.key.hasPrefix(prefix) }.sorted { $0.key < $1.key }.map(\.value)
    return paths.count == count ? paths : nil
  }
}

extension IncrementalStore {
  /// The key to look `task` up under in the local cache: `fingerprint`, unless the task has a
  /// depfile no record of it has read; then the key of the files the path set stored under its
  /// weak key names, hashed now (nil when the cache has none).
  ///
  /// - Parameter directory: the task's working directory.
  package func cacheKey(_ task: TaskDefinition, _ fingerprint: Fingerprint, directory: String) -> Fingerprint? {
    guard task.discoversInputs, fingerprint.discovered == nil else { return fingerprint }
    guard settings.useCache, let entry = try? cache.load(fingerprint.value), let paths = PathSet.paths(in: entry)
    else { return nil }
    return fingerprint.discovering(Fingerprint.hashFiles(paths, in: directory, previous: [], disk: disk), task: task)
  }
}
