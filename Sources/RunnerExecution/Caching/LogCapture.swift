import RunnerBasics
import RunnerCache
import RunnerEvents
import RunnerProcess
import Synchronization

/// Keeps a task's output lines for its cache entry while passing them on to the task's own
/// sink (so the console, events and failure tail see them as before).
final class LogCapture: RunObserver {
  /// A log longer than this is not cached (the task's outputs still are not: the entry is skipped).
  static let maximumBytes = 16 << 20

  private struct Captured {
    var chunks: [CacheEntry.LogChunk] = []
    var bytes = 0
    var overflowed = false
  }

  let forward: TaskOutput
  private let captured = Mutex(Captured())

  init(forward: TaskOutput) { self.forward = forward }

  /// The lines, or nil if there were too many to keep.
  var lines: [CacheEntry.LogChunk]? {
    captured.withLock { $0.overflowed ? nil : $0.chunks }
  }

  /// The inner `TaskOutput` masked it already.
  func unfinished(task: Int, stream: OutputStreamKind, bytes: UnsafeRawBufferPointer) {
    forward.observer.unfinished(task: task, stream: stream, bytes: bytes)
  }

  var wantsUnfinished: Bool { forward.observer.wantsUnfinished }

  /// Events of the inner operation (a command's exit) go on to the run.
  func record(_ event: RunEvent) { forward.observer.record(event) }

  func output(task: Int, stream: OutputStreamKind, lines: OutputLines, time: Duration) {
    captured.withLock { captured in
      guard !captured.overflowed else { return }
      captured.bytes += lines.bytes.count + 5
      if captured.bytes > Self.maximumBytes {
        captured.overflowed = true
        captured.chunks.removeAll()
      } else if let last = captured.chunks.indices.last, captured.chunks[last].stream == stream {
        captured.chunks[last].bytes.append(contentsOf: lines.bytes)
      } else {
        captured.chunks.append(CacheEntry.LogChunk(stream: stream, bytes: Array(lines.bytes)))
      }
    }
    forward.receive(lines: lines, stream: stream)
  }
}
