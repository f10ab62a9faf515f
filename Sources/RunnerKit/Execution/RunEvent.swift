/// Something that happened during a run, stamped with monotonic time since the run began.
public struct RunEvent: Sendable {
  public enum Kind: Sendable {
    case runStarted(tasks: Int, concurrency: Int)
    /// A task changed state; `attempt` counts from 1.
    case state(TaskState, attempt: Int, reason: String?)
    /// A task waits for a readiness gate.
    case waiting(gate: String)
    case retrying(attempt: Int, after: Duration, reason: String)
    case runFinished(RunSummary)
  }

  public var time: Duration
  /// Index of the task in the graph, for task events.
  public var task: Int?
  public var kind: Kind
}

/// Receives the events of a run. Called from the scheduler, one event at a time.
public protocol RunObserver: Sendable {
  func record(_ event: RunEvent)
  /// A line of a task's output (whole, without its newline). Called on the process reactor's thread.
  func output(task: Int, stream: OutputStreamKind, line: UnsafeRawBufferPointer, time: Duration)
}
