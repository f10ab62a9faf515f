import RunnerBasics
import RunnerCache
import Synchronization

/// Keeps a task's output lines for its cache entry while passing them on to the task's own
/// sink (so the console, events and failure tail see them as before).
final class LogCapture: RunObserver {
  /// A log longer than this is not cached (the task's outputs still are not: the entry is skipped).
  static let maximumBytes = 16 << 20

  private struct Captured {
    var lines: [CacheEntry.LogLine] = []
    var bytes = 0
    var overflowed = false
  }

  let forward: TaskOutput
  private let captured = Mutex(Captured())

  init(forward: TaskOutput) { self.forward = forward }

  /// The lines, or nil if there were too many to keep.
  var lines: [CacheEntry.LogLine]? {
    captured.withLock { $0.overflowed ? nil : $0.lines }
  }

  func record(_ event: RunEvent) {}

  func output(task: Int, stream: OutputStreamKind, line: UnsafeRawBufferPointer, time: Duration) {
    captured.withLock { captured in
      guard !captured.overflowed else { return }
      captured.bytes += line.count + 5
      if captured.bytes > Self.maximumBytes {
        captured.overflowed = true
        captured.lines.removeAll()
      } else {
        captured.lines.append(CacheEntry.LogLine(stream: stream, bytes: Array(line)))
      }
    }
    forward.receive(line, stream: stream, complete: true)
  }
}
