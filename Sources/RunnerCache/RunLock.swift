import Glibc
import RunnerBasics

/// An exclusive `flock` on `.runner/lock`, so two runners in one directory never interleave
/// their state and cache writes. The kernel drops it when the process ends, even on SIGKILL.
package final class RunLock: Sendable {
  let descriptor: Int32
  package let path: String

  private init(descriptor: Int32, path: String) {
    self.descriptor = descriptor
    self.path = path
  }

  deinit { close(descriptor) }

  /// Takes the lock, waiting (polling, so the caller stays cancellable) if another runner holds it.
  ///
  /// - Parameters:
  ///   - wait: false fails at once when the lock is held (`--no-wait`).
  ///   - onWait: called once, with the holder's pid if known, before waiting (`announce`
  ///     says so on stderr).
  /// - Throws: `CacheError.locked` (no wait, or cancelled while waiting) or `.io`.
  /// Says on stderr that this runner waits for `holder` to release the lock in `directory`.
  /// Set in every task's environment: the locks the task's runner and the runners that
  /// started it hold, separated by `:`.
  package static let variable = "RUNNER_LOCK"

  package static func canonical(_ path: String) -> String { FilePath.canonical(path) }

  package static func announce(directory: String) -> (String) -> Void {
    { holder in Terminal.write("runner: waiting for \(holder) to release '\(directory)/lock'…\n", to: 2) }
  }

  /// Takes the lock of each directory (`acquire(directory:)`), the same directory once, in
  /// the order of their real paths, so two runners that want some of the same never each hold
  /// one the other waits for.
  ///
  /// The first directory is the run's own; another one that cannot be made (a read-only
  /// include) is passed over: no runner can keep its state there either. A lock a runner that
  /// started this one holds fails at once (`CacheError.nested`), before any is waited for:
  /// waiting on one while holding another could close a circle through that runner.
  package static func acquire(directories: [String], wait: Bool) async throws(CacheError) -> [RunLock] {
    var seen = Set<String>()
    var ordered: [(real: String, directory: String)] = []
    for (index, directory) in directories.enumerated() {
      do {
        try CacheFileSystem.makeDirectories(directory)
      } catch {
        if index == 0 { throw error }
        continue
      }
      let real = canonical(directory)
      if seen.insert(real).inserted { ordered.append((real, directory)) }
    }
    let held = getenv(Self.variable).map { String(cString: $0).split(separator: ":").map(String.init) } ?? []
    for (real, _) in ordered where held.contains(real + "/lock") { throw .nested(real + "/lock") }
    var locks: [RunLock] = []
    for (_, directory) in ordered.sorted(by: { $0.real < $1.real }) {
      locks.append(try await acquire(directory: directory, wait: wait, onWait: announce(directory: directory)))
    }
    return locks
  }

  package static func acquire(
    directory: String, wait: Bool, onWait: (String) -> Void = { _ in }
  ) async throws(CacheError) -> RunLock {
    try CacheFileSystem.makeDirectories(directory)
    let path = directory + "/lock"
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0o644)
    guard descriptor >= 0 else { throw .io(path, reason: CacheFileSystem.describe(errno)) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      close(descriptor)
      throw .io(path, reason: "not a regular file (\(CacheFileSystem.kind(of: info.st_mode))): remove it")
    }
    var announced = false
    while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR else {
        let reason = CacheFileSystem.describe(errno)
        close(descriptor)
        throw .io(path, reason: reason)
      }
      if let held = getenv(Self.variable),
        String(cString: held).split(separator: ":").contains(Substring(Self.canonical(path)))
      {
        // Waiting would never end: the holder waits for the task that started us.
        close(descriptor)
        throw .nested(path)
      }
      guard wait, !Task.isCancelled else {
        close(descriptor)
        throw .locked(path)
      }
      if !announced {
        announced = true
        let holder = (try? CacheFileSystem.read(path)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        onWait(holder.isEmpty ? "another runner" : "another runner (pid \(holder))")
      }
      try? await Task.sleep(for: .milliseconds(50))
    }
    let pid = Array(String(getpid()).utf8)
    ftruncate(descriptor, 0)
    _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    return RunLock(descriptor: descriptor, path: path)
  }
}
