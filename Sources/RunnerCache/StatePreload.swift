import Dispatch
import Glibc
import RunnerBasics
import Synchronization

/// Reads and decodes `.runner/state` on a thread of its own while the task file is parsed:
/// on a large graph both take tens of milliseconds, and a run needs both before it starts.
///
/// The read happens before the run takes the lock, so `IncrementalStore` uses it only if the
/// file is still the one that was read (same inode and stamps); otherwise it reads again.
final class StatePreload: Sendable {
  struct Loaded: Sendable {
    var state: BuildState
    var stamp: CacheFileSystem.Stamp?
    var warning: String?
    /// Part of the file could not be used: the next save writes it whole rather than append
    /// after the damage.
    var damaged = false
    /// The size of the file's last whole write (its first segment).
    var wholeBytes = 0
    /// The records' files compared with the file system (with a `base`, once read).
    var checks: RecordChecks?
    /// The file's last segment is a no-op record (a save must void it).
    var endsWithNoOp = false
    /// That record.
    var record: NoOpRecord?
  }

  /// The state directory this preload read from.
  let directory: String
  let base: String?
  private let loaded = Mutex<Loaded?>(nil)
  /// Signalled once `loaded` is set (and again by each waiter, for the next one).
  private let done = DispatchSemaphore(value: 0)

  /// Starts reading `directory/state` (a missing file reads as an empty state).
  ///
  /// - Parameter base: the task file's directory. Given it, the thread goes on to compare
  ///   the records' files with the file system once the state is handed over (`RecordChecks`).
  init(directory: String, base: String? = nil) {
    self.directory = directory
    self.base = base
    // Detached: a run that stops early (a bad task file) never waits for it.
    let started = DetachedThread.start { [self] in
      var loaded = StatePreload.read(directory)
      if let base, !loaded.state.tasks.isEmpty {
        loaded.checks = RecordChecks(loaded.state, base: base, first: loaded.record)
      }
      finish(loaded)
      loaded.checks?.run()
    }
    if !started { finish(Self.read(directory)) }
  }

  private func finish(_ result: Loaded) {
    loaded.withLock { $0 = result }
    done.signal()
  }

  /// Waits for the read to finish.
  func wait() -> Loaded {
    done.wait()
    done.signal()
    return loaded.withLock { $0 }!
  }

  /// The state file's records, its stamp when read, and a warning when part of it (or all)
  /// could not be used.
  static func read(_ directory: String, files: any FileSystem = LocalFileSystem()) -> Loaded {
    let path = directory + "/state"
    guard let status = files.status(path, follow: true) else { return Loaded(state: BuildState(), stamp: nil) }
    let bytes: [UInt8]
    do {
      bytes = try files.read(path)
    } catch {
      return Loaded(
        state: BuildState(), stamp: status.stamp,
        warning: "discarding the incremental state: \(error); every task will run", damaged: true)
    }
    let decoded = BuildState.decode(bytes, path: path)
    guard let damage = decoded.damage else {
      // A state of the version before is used, and written whole (with the new header) at the end.
      return Loaded(
        state: decoded.state, stamp: status.stamp, damaged: decoded.previousVersion, wholeBytes: decoded.wholeBytes,
        endsWithNoOp: decoded.noOpRecord != nil, record: decoded.noOpRecord)
    }
    if decoded.tornAppend {
      // An append cut short says nothing worth a warning: its tasks simply run again.
      return Loaded(state: decoded.state, stamp: status.stamp, damaged: true, wholeBytes: decoded.wholeBytes)
    }
    if decoded.otherVersion {
      return Loaded(
        state: decoded.state, stamp: status.stamp,
        warning: "the incremental state '\(path)' was written by another version of runner; every task will run once",
        damaged: true)
    }
    let consequence =
      decoded.state.tasks.isEmpty
      ? "every task will run" : "the tasks recorded after that point will run"
    return Loaded(
      state: decoded.state, stamp: status.stamp,
      warning: "discarding the incremental state from where it is damaged ('\(path)': \(damage)); \(consequence)",
      damaged: true)
  }
}
