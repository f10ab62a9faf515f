import Synchronization

/// Finds `argv[0]` in `PATH` the way `execvp` does, remembering answers per PATH value.
final class ExecutableLocator: Sendable {
  /// Used when the child's environment has no PATH (glibc's `execvp` default, minus ".").
  static let defaultSearchPath = "/usr/local/bin:/usr/bin:/bin"

  private let cache = Mutex<[CacheKey: String]>([:])

  private struct CacheKey: Hashable {
    var searchPath: String
    var name: String
  }

  /// The path to exec for `name`, and whether a PATH search produced it.
  ///
  /// - Throws: `SpawnError.executableNotFound` when no PATH entry holds an executable file.
  func resolve(_ name: String, searchPath: String?) throws(SpawnError) -> (path: String, searched: Bool) {
    if name.isEmpty { throw .executableNotFound(name) }
    if name.contains("/") { return (name, false) }
    let key = CacheKey(searchPath: searchPath ?? Self.defaultSearchPath, name: name)
    if let hit = cache.withLock({ $0[key] }) { return (hit, true) }
    for directory in key.searchPath.split(separator: ":", omittingEmptySubsequences: false) {
      let candidate = directory.isEmpty ? name : "\(directory)/\(name)"
      if Kernel.isExecutable(candidate) {
        cache.withLock { $0[key] = candidate }
        return (candidate, true)
      }
    }
    throw .executableNotFound(name)
  }

  /// Drops every cached answer that pointed at `path` (it vanished since it was found).
  func forget(path: String) {
    cache.withLock { entries in entries = entries.filter { $0.value != path } }
  }
}
