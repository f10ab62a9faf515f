import Glibc
import RunnerBasics

/// Cuts one stream's bytes into lines for an `OutputLineSink`, without decoding them.
///
/// Lines that lie wholly inside one read are handed to the sink straight from the read buffer;
/// only a line that spans reads is copied, into `pending`, whose size is capped so a task that
/// never prints a newline cannot grow runner's memory.
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
    var start = 0
    while start < chunk.count {
      let rest = chunk.count - start
      guard let newline = memchr(base + start, 0x0A, rest) else {
        pending.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: rest))
        if pending.count >= Self.fragmentLimit { deliverPending(to: sink, complete: false) }
        return
      }
      let length = base.distance(to: UnsafeRawPointer(newline)) - start
      let line = UnsafeRawBufferPointer(start: base + start, count: length)
      if pending.isEmpty {
        sink.receive(line, stream: stream, complete: true)
      } else {
        pending.append(contentsOf: line)
        deliverPending(to: sink, complete: true)
      }
      start += length + 1
    }
  }

  /// Hands over a trailing partial line, as a fragment, at end of output.
  mutating func finish(to sink: any OutputLineSink) {
    if !pending.isEmpty { deliverPending(to: sink, complete: false) }
    pending = []
  }

  private mutating func deliverPending(to sink: any OutputLineSink, complete: Bool) {
    pending.withUnsafeBytes { sink.receive($0, stream: stream, complete: complete) }
    // Keep the storage while a giant line streams through; drop it once that line ends.
    pending.removeAll(keepingCapacity: !complete || pending.capacity <= Self.retainedCapacity)
  }
}
