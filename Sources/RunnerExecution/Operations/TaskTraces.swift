import RunnerProcess
import Synchronization

/// The traces of a run's tasks (`--check-inputs`): every process a shell task starts for its
/// commands is spawned traced (`ProcessTrace`), and what they did to files is kept by task.
package final class TaskTraces: Sendable {
  private let logs = Mutex<[Int: ProcessTrace.Log]>([:])

  package init() {}

  /// What `task`'s commands did, in its last attempt.
  func record(_ task: Int, _ log: ProcessTrace.Log) {
    logs.withLock { $0[task] = log }
  }

  /// What the last attempt of `task` did; nil for a task that ran no command.
  package func log(of task: Int) -> ProcessTrace.Log? {
    logs.withLock { $0[task] }
  }
}
