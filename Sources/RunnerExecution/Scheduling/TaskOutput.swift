import RunnerBasics
import RunnerEvents
import RunnerModel
import RunnerProcess
import Synchronization

/// A task's output sink: puts back together lines the reactor delivers in pieces, forwards
/// runs of whole lines to the run's observer, and keeps the last lines for the failure summary.
package final class TaskOutput: OutputLineSink {
  /// How many of the last lines are kept for the summary.
  static let tailLength = 10
  /// A line longer than this is passed on in pieces rather than held (bounded memory).
  static let maximumLine = 1 << 20

  struct State: ~Copyable {
    var pending: [OutputStreamKind: [UInt8]] = [:]
    /// Streams whose last piece was a line broken at `maximumLine`: a newline that comes
    /// next ends that line, and is not a line of its own.
    var broken: Set<OutputStreamKind> = []
    var tail: [[UInt8]] = []
    var tailNext = 0
  }

  let task: Int
  let observer: any RunObserver
  /// The run's clock and when the run started on it: an event's time is the time between.
  let clock: any RunClock
  let start: ContinuousClock.Instant
  /// Secret values, replaced by `***` before any line goes on.
  let mask: SecretMask
  private let state = Mutex(State())

  package init(
    task: Int, observer: any RunObserver, clock: any RunClock, start: ContinuousClock.Instant, mask: SecretMask = .none
  ) {
    self.task = task
    self.observer = observer
    self.clock = clock
    self.start = start
    self.mask = mask
  }

  package func receive(lines: OutputLines, stream: OutputStreamKind) {
    state.withLock { state in
      var lines = lines
      if state.broken.remove(stream) != nil, state.pending[stream]?.isEmpty != false, lines.bytes.first == 0x0A {
        guard lines.bytes.count > 1 else { return }
        lines = OutputLines(UnsafeRawBufferPointer(rebasing: lines.bytes.dropFirst()))
      }
      guard state.pending[stream]?.isEmpty == false else { return emit(lines, stream: stream, &state) }
      // The first line ends what the pending pieces began.
      let bytes = lines.bytes
      let first = bytes.firstIndex(of: 0x0A)! + 1
      state.pending[stream]!.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[..<first]))
      emitPending(stream, &state)
      if first < bytes.count {
        emit(OutputLines(UnsafeRawBufferPointer(rebasing: bytes[first...])), stream: stream, &state)
      }
    }
  }

  package func receive(fragment: UnsafeRawBufferPointer, stream: OutputStreamKind) {
    state.withLock { state in
      state.broken.remove(stream)
      state.pending[stream, default: []].append(contentsOf: fragment)
      guard state.pending[stream]!.count >= Self.maximumLine else { return }
      var piece = state.pending.removeValue(forKey: stream)!
      if !mask.isEmpty {
        // A secret across the cut would be masked in neither piece: the piece is masked
        // whole, and its last bytes, where a secret may begin, start the next one.
        piece = piece.withUnsafeBytes { mask.masked($0) } ?? piece
        let kept = min(mask.longest - 1, piece.count)
        state.pending[stream] = Array(piece.suffix(kept))
        piece.removeLast(kept)
      }
      piece.append(0x0A)
      piece.withUnsafeBytes { emit(OutputLines($0), stream: stream, &state) }
      state.broken.insert(stream)
    }
  }

  /// A line not finished yet goes to observers that show it (the live view), masked; with
  /// secrets, less its last bytes once masked, where the start of a secret the next read
  /// completes may be.
  ///
  /// Only the last `unfinishedWindow` bytes go on, after what this sink holds of the line (the
  /// bytes kept back at a 1 MiB cut, where a secret may begin); with secrets, masked, less
  /// `longest - 1` bytes at each end (the end of a secret that began before the window, the
  /// start of one the next read completes).
  package func receive(unfinished: UnsafeRawBufferPointer, stream: OutputStreamKind) {
    guard observer.wantsUnfinished, !unfinished.isEmpty else { return }
    let margin = mask.isEmpty ? 0 : mask.longest - 1
    let window = Self.unfinishedWindow + 2 * margin
    var bytes = state.withLock { $0.pending[stream].map { Array($0.suffix(window)) } ?? [] }
    bytes.append(contentsOf: unfinished.suffix(window))
    if bytes.count > window { bytes.removeFirst(bytes.count - window) }
    if margin > 0 {
      // Masking never makes a text longer: `***` is no longer than a value.
      let cutAtStart = bytes.count >= window ? margin : 0
      bytes = bytes.withUnsafeBytes { mask.masked($0) } ?? bytes
      bytes.removeLast(min(bytes.count, margin))
      bytes.removeFirst(min(bytes.count, cutAtStart))
    }
    guard !bytes.isEmpty else { return }
    bytes.withUnsafeBytes { observer.unfinished(task: task, stream: stream, bytes: $0) }
  }

  /// The most of an unfinished line that goes on (its end).
  static let unfinishedWindow = 4096

  /// Tells the run what the key check decided for this task (`RunEvent.Kind.decided`).
  package func recordDecision(_ decision: Decision) {
    observer.record(RunEvent(time: clock.now - start, task: task, kind: .decided(decision)))
  }

  /// Tells the run how a command of this task ended (`RunEvent.Kind.exited`).
  package func recordExit(_ outcome: ProcessOutcome) {
    observer.record(RunEvent(time: clock.now - start, task: task, kind: .exited(outcome)))
  }

  /// Ends a line the process left without a newline (called when a command exits).
  package func finishLine() {
    state.withLock { state in
      state.broken = []
      for stream in [OutputStreamKind.stdout, .stderr] where state.pending[stream]?.isEmpty == false {
        state.pending[stream]!.append(0x0A)
        emitPending(stream, &state)
      }
    }
  }

  /// The last lines printed, oldest first, decoded leniently.
  package var tail: [String] {
    state.withLock { state in
      let ordered =
        state.tail.count < Self.tailLength
        ? state.tail : Array(state.tail[state.tailNext...] + state.tail[..<state.tailNext])
      return ordered.map { String(decoding: $0, as: UTF8.self) }
    }
  }

  /// Emits the pending bytes of `stream` (which end in a newline) and empties them.
  private func emitPending(_ stream: OutputStreamKind, _ state: inout State) {
    let whole = state.pending[stream]!
    state.pending[stream]!.removeAll(keepingCapacity: whole.count <= 1 << 16)
    whole.withUnsafeBytes { emit(OutputLines($0), stream: stream, &state) }
  }

  private func emit(_ lines: OutputLines, stream: OutputStreamKind, _ state: inout State) {
    if !mask.isEmpty, let masked = mask.masked(lines.bytes) {
      return masked.withUnsafeBytes { emitMasked(OutputLines($0), stream: stream, &state) }
    }
    emitMasked(lines, stream: stream, &state)
  }

  private func emitMasked(_ lines: OutputLines, stream: OutputStreamKind, _ state: inout State) {
    for line in lines.last(Self.tailLength) {
      let kept = UnsafeRawBufferPointer(rebasing: line.prefix(400))
      if state.tail.count < Self.tailLength {
        state.tail.append(Array(kept))
      } else {
        state.tail[state.tailNext].removeAll(keepingCapacity: true)
        state.tail[state.tailNext].append(contentsOf: kept)
        state.tailNext = (state.tailNext + 1) % Self.tailLength
      }
    }
    observer.output(task: task, stream: stream, lines: lines, time: clock.now - start)
  }
}
