import RunnerBasics
import RunnerCache
import RunnerModel

extension IncrementalStore {
  /// `runner --clean-cache`: takes the lock, removes `.runner/cache` next to the task file.
  ///
  /// - Returns: what kept the lock from runner, if anything.
  package static func cleanCache(taskFile: String, wait: Bool) async -> Result<Void, any Error> {
    let directory = TaskFileLoader.directory(of: taskFile) + "/.runner"
    guard CacheFileSystem.status(directory) != nil else { return .success(()) }
    do {
      let lock = try await RunLock.acquire(
        directory: directory, wait: wait, onWait: RunLock.announce(directory: directory))
      cleanCache(directory: directory)
      withExtendedLifetime(lock) {}
      return .success(())
    } catch {
      return .failure(error)
    }
  }
}
