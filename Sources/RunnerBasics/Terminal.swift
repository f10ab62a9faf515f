import Glibc
import Synchronization

/// Raw writes to the standard streams and the colour decision.
package enum Terminal {
  /// Writes all of `text`, retrying short writes. A closed pipe (`runner | head -1`) is
  /// not an error worth a crash: the bytes are dropped and `brokenPipe` is set.
  package static func write(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { write($0, to: descriptor) }
  }

  /// Writes `bytes`, or holds them back when the calling thread is the one that asked for it
  /// (`holdWrites`) and will `releaseHeld` before it waits. Writes from any other thread, and
  /// big ones, release what is held first, so the order of everything written is kept.
  /// Every write passes through the run's `PrintMask`.
  package static func write(_ bytes: UnsafeBufferPointer<UInt8>, to descriptor: Int32) {
    PrintMask.withMasked(bytes) { writeMasked($0, to: descriptor) }
  }

  private static func writeMasked(_ bytes: UnsafeBufferPointer<UInt8>, to descriptor: Int32) {
    held.withLock { held in
      if held.diverted.on, descriptor == 1 || descriptor == 2 { return held.diverted.keep(bytes, descriptor) }
      if let holder = held.thread, pthread_equal(holder, pthread_self()) != 0, bytes.count < Held.limit {
        if held.descriptor != descriptor { release(&held) }
        held.descriptor = descriptor
        held.bytes.append(contentsOf: bytes)
        if held.bytes.count >= Held.limit { release(&held) }
      } else {
        release(&held)
        writeNow(bytes, to: descriptor)
      }
    }
  }

  /// Output held back on one thread: the reactor's, which writes a line per task event and
  /// would otherwise make a system call for each (20 000 in a run of 10 000 up-to-date tasks).
  struct Held {
    static let limit = 1 << 15
    var thread: pthread_t?
    var descriptor: Int32 = -1
    var bytes: [UInt8] = []
    var diverted = Diverted()
  }

  private static let held = Mutex(Held())

  /// From now on, writes made on the calling thread are held until `releaseHeld` (or until
  /// `Held.limit` bytes are held, or another thread writes).
  package static func holdWrites() {
    held.withLock { $0.thread = pthread_self() }
  }

  /// Writes what is held, and holds nothing more.
  package static func stopHolding() {
    held.withLock { held in
      release(&held)
      held.thread = nil
    }
  }

  /// Writes what the holding thread held back.
  package static func releaseHeld() {
    held.withLock { release(&$0) }
  }

  private static func release(_ held: inout Held) {
    guard !held.bytes.isEmpty else { return }
    held.bytes.withUnsafeBufferPointer { writeNow($0, to: held.descriptor) }
    held.bytes.removeAll(keepingCapacity: true)
  }

  private static func writeNow(_ bytes: UnsafeBufferPointer<UInt8>, to descriptor: Int32) {
    guard var pointer = bytes.baseAddress else { return }
    var remaining = bytes.count
    while remaining > 0 {
      let written = Glibc.write(descriptor, pointer, remaining)
      if written < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        return
      }
      pointer += written
      remaining -= written
    }
  }

  /// What runner writes to stdout and stderr while the live view has the screen: kept, in order,
  /// to be written when it leaves (past `limit` bytes, counted and dropped). Kept under the
  /// same lock as held writes, so the order of everything written is kept across both.
  struct Diverted {
    static let limit = 1 << 20
    var on = false
    var parts: [(descriptor: Int32, bytes: [UInt8])] = []
    var size = 0
    var dropped = 0

    mutating func keep(_ bytes: UnsafeBufferPointer<UInt8>, _ descriptor: Int32) {
      if size + bytes.count > Self.limit {
        dropped += bytes.count
      } else {
        parts.append((descriptor, Array(bytes)))
        size += bytes.count
      }
    }
  }

  /// From now on, what runner writes to stdout and stderr through `write` is kept until
  /// `endDiverting` (the live view has the screen; `writeToScreen` draws it). What was held
  /// back is written first.
  package static func startDiverting() {
    held.withLock { held in
      release(&held)
      held.diverted.on = true
    }
  }

  /// Writes what was kept, in order, and writes directly again.
  package static func endDiverting() {
    held.withLock { held in
      let kept = held.diverted
      held.diverted = Diverted()
      for part in kept.parts { part.bytes.withUnsafeBufferPointer { writeNow($0, to: part.descriptor) } }
      guard kept.dropped > 0 else { return }
      var note = "runner: \(kept.dropped) bytes of runner's own messages were dropped while the view was shown\n"
      note.withUTF8 { writeNow($0, to: 2) }
    }
  }

  /// Writes to the screen at once, past the diversion and the held writes (the live view's
  /// frames); masked like everything else.
  package static func writeToScreen(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { bytes in PrintMask.withMasked(bytes) { writeNow($0, to: descriptor) } }
  }

  /// Colour is for people: a terminal, TERM not dumb; CLICOLOR_FORCE forces it; a non-empty
  /// NO_COLOR turns it off whatever else is set (no-color.org: an empty one does nothing).
  package static func colorEnabled(for descriptor: Int32) -> Bool {
    if let off = getenv("NO_COLOR"), off.pointee != 0 { return false }
    if let force = getenv("CLICOLOR_FORCE"), String(cString: force) != "0" { return true }
    if let term = getenv("TERM"), String(cString: term) == "dumb" { return false }
    return isatty(descriptor) == 1
  }

  package static var processorCount: Int {
    max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
  }
}
