import Glibc
import RunnerBasics
import Synchronization

/// Which `stat` stamps may stand for a file's content from now on, as ninja trusts mtimes. A
/// file changed in the same tick of the file system's clock as its stamp was taken could
/// change again without its stamp changing (git calls it "racily clean"); it gets no stamp and
/// is hashed again next time.
///
/// The reference is the file system's own clock: the time of a file under `.runner/` touched
/// before the stamps it judges were taken. A file on that device whose last change (mtime or
/// ctime) is strictly older than the touch cannot change again without a newer stamp, whatever
/// the granularity of the file system's timestamps or the skew of a file server's clock. A
/// file on another device, or every file when the mark cannot be touched (a read-only
/// checkout), is judged by the run's clock: changed at least `window` before.
package final class StampTrust: Sendable {
  /// How long ago a file with no reference must have changed: 2 s covers the coarsest
  /// timestamps (FAT's).
  package static let window: Int64 = 2_000_000_000
  /// How old a reference may grow before a judge asks for a newer one.
  static let refreshInterval = Duration.milliseconds(250)

  private struct Reference {
    var device: Int64
    var time: Int64
    var taken: ContinuousClock.Instant
  }

  private struct State {
    var descriptor: Int32 = -1
    var reference: Reference?
    var lastTry: ContinuousClock.Instant?
  }

  private let mark: String?
  private let clock: any RunClock
  private let state = Mutex(State())

  /// - Parameter mark: the file to touch for a reference (`.runner/clock`); nil judges by
  ///   the clock alone.
  package init(mark: String?, clock: any RunClock = SystemClock()) {
    self.mark = mark
    self.clock = clock
  }

  deinit {
    state.withLock { if $0.descriptor >= 0 { close($0.descriptor) } }
  }

  /// Judges stamps taken from now on (never one taken before this call).
  package func judge() -> Judge {
    let now = clock.now
    let reference = state.withLock { state -> Reference? in
      if let mark, state.lastTry.map({ now - $0 >= Self.refreshInterval }) ?? true {
        state.lastTry = now
        state.reference = Self.touch(mark, &state.descriptor).map { Reference(device: $0, time: $1, taken: now) }
      }
      return state.reference
    }
    return Judge(device: reference?.device, reference: reference?.time ?? .min, wall: clock.wallNanoseconds)
  }

  /// Touches `mark` (opened once) and returns its device and new modification time.
  private static func touch(_ mark: String, _ descriptor: inout Int32) -> (Int64, Int64)? {
    if descriptor < 0 {
      descriptor = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
      guard descriptor >= 0 else { return nil }
    }
    var info = stat()
    guard futimens(descriptor, nil) == 0, fstat(descriptor, &info) == 0 else { return nil }
    return (
      Int64(bitPattern: UInt64(info.st_dev)),
      Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    )
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
      return wall - changed >= StampTrust.window
    }

    /// The stamp to record for a file: `stamp`, or nil when it cannot be trusted.
    package func stamp(_ stamp: CacheFileSystem.Stamp) -> CacheFileSystem.Stamp? {
      trusts(stamp) ? stamp : nil
    }
  }
}
