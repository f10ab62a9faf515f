import RunnerBasics
import Synchronization

/// The disk as the incremental engine sees it: a file system (`LocalFileSystem`, or one in
/// memory under test), and the judge of which of its `stat` stamps may stand for a file's
/// content from now on, as ninja trusts mtimes.
///
/// A file changed in the same tick of the file system's clock as its stamp was taken could
/// change again without its stamp changing (git calls it "racily clean"); it gets no stamp and
/// is hashed again next time. The reference is the file system's own clock: the time of a mark
/// (`.runner/clock`) touched before the stamps it judges were taken. On a local file system
/// (whose times the kernel's clock sets, for a write and a touch alike), a file on the mark's
/// device whose last change (mtime or ctime) is strictly older than the touch cannot change
/// again without a newer stamp, whatever the granularity of its timestamps. A file on another
/// device, or every file when the mark cannot be touched (a read-only checkout, a dry run, a
/// network file system), is judged by the run's clock: changed at least `window` before.
///
/// A recorded stamp is judged again when it is reused (`Fingerprint.hashFiles`, source walks):
/// after a clock stepped back, a file rewritten at the time it had when it was recorded is
/// hashed again, as the new mark is not past it. (The read-ahead — `RecordChecks`, the no-op
/// record — compares stamps only. A write through `mmap` to a page already dirty changes no
/// time at all: no stamp can see it, as with make or ninja.)
package final class Disk: Sendable {
  /// How long ago a file with no reference must have changed: 2 s covers the coarsest
  /// timestamps (FAT's).
  package static let window: Int64 = 2_000_000_000
  /// How old a reference may grow before a judge asks for a newer one.
  static let refreshInterval = Duration.milliseconds(250)

  private struct Reference {
    var device: Int64
    var time: Int64
  }

  private struct State {
    var reference: Reference?
    var lastTry: ContinuousClock.Instant?
  }

  package let files: any FileSystem
  private let mark: String?
  private let clock: any RunClock
  private let state = Mutex(State())

  /// - Parameter mark: the file to touch for a reference (`.runner/clock`); nil judges by
  ///   the clock alone.
  package init(mark: String?, clock: any RunClock = SystemClock(), files: any FileSystem = LocalFileSystem()) {
    self.mark = mark
    self.clock = clock
    self.files = files
  }

  /// Judges stamps taken from now on (never one taken before this call).
  package func judge() -> Judge {
    let now = clock.now
    let reference = state.withLock { state -> Reference? in
      if let mark, state.lastTry.map({ now - $0 >= Self.refreshInterval }) ?? true {
        state.lastTry = now
        state.reference = files.touch(mark).map { Reference(device: $0.device, time: $0.modified) }
      }
      return state.reference
    }
    return Judge(device: reference?.device, reference: reference?.time ?? .min, wall: clock.wallNanoseconds)
  }

  /// The file system's time now, by a fresh touch of the mark (the run's clock without one):
  /// a file whose last change is later changed after this call.
  package func now() -> (device: Int64?, time: Int64) {
    if let mark, let stamp = files.touch(mark) { return (stamp.device, stamp.modified) }
    return (nil, clock.wallNanoseconds)
  }

  /// Whether the file with `stamp` was modified after `moment` (`now()`): by the file
  /// system's time on the mark's device, by the run's clock (with the widest timestamp
  /// granularity) elsewhere. The modification time alone: a `chmod` or a hard link changes
  /// the status time of a file whose content stays.
  package static func modified(_ stamp: CacheFileSystem.Stamp, after moment: (device: Int64?, time: Int64)) -> Bool {
    if let device = moment.device, device == stamp.device { return stamp.modified > moment.time }
    return stamp.modified > moment.time - window
  }

  /// One judgement's reference: stamps taken after it was made.
  package struct Judge: Sendable {
    var device: Int64?
    var reference: Int64
    var wall: Int64

    /// Trusts a stamp only by the clock: changed at least `window` before `wall`.
    package init(wall: Int64) {
      self.init(device: nil, reference: .min, wall: wall)
    }

    init(device: Int64?, reference: Int64, wall: Int64) {
      self.device = device
      self.reference = reference
      self.wall = wall
    }

    /// Whether a later change of the file is sure to change `stamp`.
    package func trusts(_ stamp: CacheFileSystem.Stamp) -> Bool {
      let changed = max(stamp.modified, stamp.changed)
      if let device, device == stamp.device { return changed < reference }
      return wall - changed >= Disk.window
    }

    /// The stamp to record for a file: `stamp`, or nil when it cannot be trusted.
    package func stamp(_ stamp: CacheFileSystem.Stamp) -> CacheFileSystem.Stamp? {
      trusts(stamp) ? stamp : nil
    }
  }
}
