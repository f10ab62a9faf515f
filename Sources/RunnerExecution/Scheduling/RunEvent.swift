import RunnerBasics

/// Something that happened during a run, stamped with monotonic time since the run began.
package struct RunEvent: Sendable {
  package enum Kind: Sendable {
    case runStarted(tasks: Int, concurrency: Int)
    /// A task changed state; `attempt` counts from 1.
    case state(TaskState, attempt: Int, reason: String?)
    /// A task waits for a readiness gate.
    case waiting(gate: String)
    case retrying(attempt: Int, after: Duration, reason: String)
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

/// Receives the events of a run. Called from the scheduler, one event at a time.
package protocol RunObserver: Sendable {
  func record(_ event: RunEvent)
  /// A line of a task's output (whole, without its newline). Called on the process reactor's thread.
  func output(task: Int, stream: OutputStreamKind, line: UnsafeRawBufferPointer, time: Duration)
}
