import RunnerBasics
import RunnerCache
import RunnerModel

extension IncrementalStore {
  /// `runner --clean-cache`: takes the lock, removes `.runner/cache` next to the task file.
  ///
  /// - Returns: the exit code (2 when the lock cannot be had).
  package static func cleanCache(taskFile: String, wait: Bool) async -> Int32 {
    let directory = TaskFileLoader.directory(of: taskFile) + "/.runner"
    guard CacheFileSystem.status(directory) != nil else { return ExitStatus.success }
    do {
      let lock = try await RunLock.acquire(
        directory: directory, wait: wait, onWait: RunLock.announce(directory: directory))
      cleanCache(directory: directory)
      withExtendedLifetime(lock) {}
      return ExitStatus.success
    } catch {
      DiagnosticPrinter().print([Diagnostic(.error, "\(error)")])
      return ExitStatus.usage
    }
  }
}
