import CRunnerShim
import Glibc
import RunnerBasics

/// Cuts one stream's bytes into runs of whole lines for an `OutputLineSink`, without decoding
/// or copying them.
///
/// The whole lines of a read go to the sink in one call, straight from the read buffer (found
/// by the last newline alone); only a line that spans reads is copied, into `pending`, whose
/// size is capped so a task that never prints a newline cannot grow runner's memory.
struct LineSplitter {
  /// A partial line at least this long goes to the sink as a fragment.
  static let fragmentLimit = 1 << 20
  /// Above this, `pending`'s storage is released once its line is delivered.
  private static let retainedCapacity = 64 << 10

  let stream: OutputStreamKind
  private var pending: [UInt8] = []

  init(stream: OutputStreamKind) {
    self.stream = stream
  }

  mutating func feed(_ chunk: UnsafeRawBufferPointer, to sink: any OutputLineSink) {
    guard let base = chunk.baseAddress, chunk.count > 0 else { return }
    guard let lastNewline = runner_memrchr(base, 0x0A, chunk.count) else {
      pending.append(contentsOf: chunk)
      if pending.count >= Self.fragmentLimit { return deliverFragment(to: sink) }
      pending.withUnsafeBytes { sink.receive(unfinished: $0, stream: stream) }
      return
    }
    let end = base.distance(to: UnsafeRawPointer(lastNewline)) + 1
    var start = 0
    if !pending.isEmpty {
      let first = base.distance(to: UnsafeRawPointer(memchr(base, 0x0A, end)!)) + 1
      pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: first))
      pending.withUnsafeBytes { sink.receive(lines: OutputLines($0), stream: stream) }
      release()
      start = first
    }
    if start < end {
      sink.receive(lines: OutputLines(UnsafeRawBufferPointer(start: base + start, count: end - start)), stream: stream)
    }
    // A giant line that went on in fragments left its storage behind.
    if pending.isEmpty, pending.capacity > Self.retainedCapacity { pending = [] }
    if end < chunk.count {
      pending.append(contentsOf: UnsafeRawBufferPointer(start: base + end, count: chunk.count - end))
      pending.withUnsafeBytes { sink.receive(unfinished: $0, stream: stream) }
    }
  }

  /// Hands over a trailing partial line, as a fragment, at end of output.
  mutating func finish(to sink: any OutputLineSink) {
    if !pending.isEmpty { deliverFragment(to: sink) }
    pending = []
  }

  private mutating func deliverFragment(to sink: any OutputLineSink) {
    pending.withUnsafeBytes { sink.receive(fragment: $0, stream: stream) }
    // Keep the storage while a giant line streams through.
    pending.removeAll(keepingCapacity: true)
  }

  /// Empties `pending` after a whole line, dropping the storage a giant line grew.
  private mutating func release() {
    pending.removeAll(keepingCapacity: pending.capacity <= Self.retainedCapacity)
  }
}
