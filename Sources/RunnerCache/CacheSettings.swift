import RunnerModel

/// How a run uses incremental state and the local cache (`--force`, `--no-cache`, `--no-wait`).
package struct CacheSettings: Sendable {
  /// Check and record fingerprints at all (false: every task runs, nothing is written).
  package var enabled: Bool
  /// Read and write `.runner/cache` (false is `--no-cache`; up-to-date checks still happen).
  package var useCache: Bool
  /// Run every selected task; results are still recorded and cached.
  package var force: Bool
  /// Tasks run whatever their state, by graph index (`--watch`: the dependents of a service
  /// it restarted).
  package var forced = Set<Int>()
  /// Wait for another runner's lock (false is `--no-wait`: fail at once).
  package var wait: Bool
  /// The cache's size bound (`RUNNER_CACHE_MAX`).
  package var maximumBytes: Int64
  /// `NoOpRecord.invocationKey` of this run, when it may leave a record of itself (and use
  /// the last run's).
  package var noOpInvocation: String?
  /// The task file's bytes, for the record's digests of it.
  package var noOpTaskFile: [UInt8] = []

  package init(
    enabled: Bool = true, useCache: Bool = true, force: Bool = false, wait: Bool = true,
    maximumBytes: Int64 = CacheStore.defaultMaximumBytes
  ) {
    self.enabled = enabled
    self.useCache = useCache
    self.force = force
    self.wait = wait
    self.maximumBytes = maximumBytes
  }

  package static let disabled = CacheSettings(enabled: false)

  /// Whether `task` runs whatever its state (`--force`, or `forced`).
  package func forces(_ task: Int) -> Bool { force || forced.contains(task) }

  /// The directory of state, cache and lock: `.runner` next to the task file.
  package static func stateDirectory(for file: TaskFile) -> String {
    (file.directory.isEmpty ? "." : file.directory) + "/.runner"
  }

  /// The same directory, from the task file's path before it is loaded.
  package static func stateDirectory(forTaskFile path: String) -> String {
    TaskFileLoader.directory(of: path) + "/.runner"
  }
}

extension CacheSettings {
  /// The command line's settings.
  ///
  /// - Parameter environment: the value of `RUNNER_CACHE_MAX` (a C string), if set.
  /// - Throws: `CacheError.invalidSize` for a bound that is not a size.
  package init(force: Bool, noCache: Bool, noWait: Bool, environment: UnsafeMutablePointer<CChar>?) throws(CacheError) {
    var maximum = CacheStore.defaultMaximumBytes
    if let environment {
      let text = String(cString: environment)
      guard let parsed = CacheStore.parseSize(text) else { throw .invalidSize(text) }
      maximum = parsed
    }
    self.init(useCache: !noCache, force: force, wait: !noWait, maximumBytes: maximum)
  }
}
