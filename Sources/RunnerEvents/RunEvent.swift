import RunnerBasics
import RunnerModel
import RunnerProcess

/// Something that happened during a run, stamped with monotonic time since the run began.
package struct RunEvent: Sendable {
  package enum Kind: Sendable {
    case runStarted(tasks: Int, concurrency: Int)
    /// A task changed state; `attempt` counts from 1.
    case state(TaskState, attempt: Int, reason: String?)
    /// A task's key check found it not up to date: it is restored, or runs, and why. (An up-to-date
    /// task says so in its `succeeded` state.)
    case decided(Decision)
    /// A task waits for a readiness gate.
    case waiting(gate: String)
    case retrying(attempt: Int, after: Duration, reason: String)
    /// A service's readiness gates passed (at once for one without gates): its dependents may start.
    case serviceReady
    /// A service is being stopped: no task that still has to run depends on it, or the run ended.
    case serviceStopping
    /// A command of the task's attempt ended (sent by the operation, before the attempt's
    /// state changes; the last one is how the attempt ended). Not in the events file.
    case exited(ProcessOutcome)
    case runFinished(RunSummary)
  }

  package var time: Duration
  /// Index of the task in the graph, for task events.
  package var task: Int?
  package var kind: Kind

  package init(time: Duration, task: Int? = nil, kind: Kind) {
    self.time = time
    self.task = task
    self.kind = kind
  }
}

/// Receives the events of a run: from the scheduler, and `exited` from a task's operation.
/// Implementations lock: calls may come from several threads.
package protocol RunObserver: Sendable {
  func record(_ event: RunEvent)
  /// Whole lines of a task's output, each ending in a newline (a line the task left without
  /// one gets one). Called on the process reactor's thread, once per read rather than per line.
  func output(task: Int, stream: OutputStreamKind, lines: OutputLines, time: Duration)
  /// The line a task has begun and not finished (a progress bar), masked; it comes whole in a
  /// later `output`. On the reactor's thread; only when `wantsUnfinished`.
  func unfinished(task: Int, stream: OutputStreamKind, bytes: UnsafeRawBufferPointer)
  /// Whether `unfinished` is for this observer: a line is masked for it on every read that ends
  /// mid-line, which only the live view needs.
  var wantsUnfinished: Bool { get }
}

extension RunObserver {
  package func unfinished(task: Int, stream: OutputStreamKind, bytes: UnsafeRawBufferPointer) {}
  package var wantsUnfinished: Bool { false }
}
