import RunnerBasics
import Synchronization

/// A task's output sink: reassembles lines the reactor delivers in fragments, forwards whole
/// lines to the run's observer, and keeps the last lines for the failure summary.
package final class TaskOutput: OutputLineSink {
  /// How many of the last lines are kept for the summary.
  static let tailLength = 10
  /// A line longer than this is passed on in pieces rather than held (bounded memory).
  static let maximumLine = 1 << 20

  struct State: ~Copyable {
    var pending: [OutputStreamKind: [UInt8]] = [:]
    var tail: [[UInt8]] = []
    var tailNext = 0
  }

  let task: Int
  let observer: any RunObserver
  let start: ContinuousClock.Instant
  private let state = Mutex(State())

  package init(task: Int, observer: any RunObserver, start: ContinuousClock.Instant) {
    self.task = task
    self.observer = observer
    self.start = start
  }

  package func receive(_ line: UnsafeRawBufferPointer, stream: OutputStreamKind, complete: Bool) {
    state.withLock { state in
      if !complete || state.pending[stream]?.isEmpty == false {
        state.pending[stream, default: []].append(contentsOf: line)
        guard complete || state.pending[stream]!.count >= Self.maximumLine else { return }
        let whole = state.pending[stream]!
        state.pending[stream]!.removeAll(keepingCapacity: true)
        whole.withUnsafeBytes { emit($0, stream: stream, &state) }
      } else {
        emit(line, stream: stream, &state)
      }
    }
  }

  /// Ends a line the process left without a newline (called when a command exits).
  package func finishLine() {
    state.withLock { state in
      for stream in [OutputStreamKind.stdout, .stderr] {
        guard let rest = state.pending[stream], !rest.isEmpty else { continue }
        state.pending[stream]!.removeAll(keepingCapacity: true)
        rest.withUnsafeBytes { emit($0, stream: stream, &state) }
      }
    }
  }

  /// The last lines printed, oldest first, decoded leniently.
  package var tail: [String] {
    state.withLock { state in
      let ordered =
        state.tail.count < Self.tailLength
        ? state.tail : Array(state.tail[state.tailNext...] + state.tail[..<state.tailNext])
      return ordered.map { String(decoding: $0.prefix(400), as: UTF8.self) }
    }
  }

  private func emit(_ line: UnsafeRawBufferPointer, stream: OutputStreamKind, _ state: inout State) {
    if state.tail.count < Self.tailLength {
      state.tail.append(Array(line.prefix(400)))
    } else {
      state.tail[state.tailNext].removeAll(keepingCapacity: true)
      state.tail[state.tailNext].append(contentsOf: line.prefix(400))
      state.tailNext = (state.tailNext + 1) % Self.tailLength
    }
    observer.output(task: task, stream: stream, line: line, time: ContinuousClock.now - start)
  }
}
