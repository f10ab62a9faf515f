import RunnerBasics
import RunnerEvents
import RunnerProcess
import Synchronization

/// Keeps a `RunRecord` of the run's state changes for the reports written after it.
///
/// Ignores output lines, so it costs nothing on the output path.
package final class RunRecorder: RunObserver {
  private let state = Mutex(RunRecord())

  package init() {}

  package var record: RunRecord { state.withLock { $0 } }

  package func record(_ event: RunEvent) {
    state.withLock { $0.apply(event) }
  }

  package func output(task: Int, stream: OutputStreamKind, lines: OutputLines, time: Duration) {}
}
