import RunnerBasics
import RunnerEvents
import RunnerProcess
import Synchronization

/// Keeps a `RunRecord` of the run's state changes for the reports written after it.
///
/// Ignores output lines, so it costs nothing on the output path.
package final class RunRecorder: RunObserver {
  private let state = Mutex(RunRecord())
  /// When the run began, in nanoseconds since the epoch (for an exported trace).
  private let began = Mutex<UInt64?>(nil)

  package init() {}

  package var record: RunRecord { state.withLock { $0 } }

  package var startNanoseconds: UInt64? { began.withLock { $0 } }

  package func record(_ event: RunEvent) {
    if case .runStarted = event.kind {
      let now = UInt64(max(0, SystemClock().wallNanoseconds))
      began.withLock { $0 = now &- UInt64(max(0, OTLPTraceRenderer.nanoseconds(event.time))) }
    }
    state.withLock { $0.apply(event) }
  }

  package func output(task: Int, stream: OutputStreamKind, lines: OutputLines, time: Duration) {}
}
