/// How a run ended: a count per final state, the failures with their last lines, the time taken.
public struct RunSummary: Sendable {
  public struct Failure: Sendable {
    public var task: Int
    public var reason: TaskFailure
    /// The last lines the task printed, oldest first.
    public var tail: [String]
  }

  public var counts: [TaskState: Int] = [:]
  /// In the order they happened; the first is the root cause under fail-fast.
  public var failures: [Failure] = []
  public var duration: Duration = .zero
  /// The signal that interrupted the run, if one did.
  public var interruption: Int32?
  /// Set when the run stopped because nothing could make progress.
  public var deadlock: String?

  public var succeeded: Bool { failures.isEmpty && interruption == nil && deadlock == nil }

  public var exitCode: Int32 {
    if let interruption { return interruption == SIGTERM_NUMBER ? ExitStatus.terminated : ExitStatus.interrupted }
    return succeeded ? ExitStatus.success : ExitStatus.taskFailed
  }
}

let SIGTERM_NUMBER: Int32 = 15
