import RunnerBasics

/// How a run ended: a count per final state, the failures with their last lines, the time taken.
package struct RunSummary: Sendable {
  package struct Failure: Sendable {
    package var task: Int
    package var reason: TaskFailure
    /// The last lines the task printed, oldest first.
    package var tail: [String]

    package init(task: Int, reason: TaskFailure, tail: [String]) {
      self.task = task
      self.reason = reason
      self.tail = tail
    }
  }

  package var counts: [TaskState: Int] = [:]
  /// In the order they happened; the first is the root cause under fail-fast.
  package var failures: [Failure] = []
  package var duration: Duration = .zero
  /// The signal that interrupted the run, if one did.
  package var interruption: Int32?
  /// Set when the run stopped because nothing could make progress.
  package var deadlock: String?

  package var succeeded: Bool { failures.isEmpty && interruption == nil && deadlock == nil }

  package var exitCode: Int32 {
    // 128 + the signal, as a shell reports a process a signal ended: 129 SIGHUP, 130 SIGINT,
    // 131 SIGQUIT, 143 SIGTERM.
    if let interruption { return 128 + interruption }
    return succeeded ? ExitStatus.success : ExitStatus.taskFailed
  }

  package init(
    counts: [TaskState: Int] = [:], failures: [Failure] = [], duration: Duration = .zero, interruption: Int32? = nil,
    deadlock: String? = nil
  ) {
    self.counts = counts
    self.failures = failures
    self.duration = duration
    self.interruption = interruption
    self.deadlock = deadlock
  }
}

/// The name of a signal that stops a run (`SIGHUP`, `SIGINT`, `SIGQUIT`, `SIGTERM`).
package func signalName(_ number: Int32) -> String {
  switch number {
  case 1: return "SIGHUP"
  case 2: return "SIGINT"
  case 3: return "SIGQUIT"
  case 15: return "SIGTERM"
  default: return "signal \(number)"
  }
}
