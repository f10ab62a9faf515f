/// The slots of a run's `-j` that runner's tasks and the tools they run share: the scheduler
/// takes one for each task it starts here; a task's tools (make, ninja, cargo) take theirs
/// through the jobserver named in `MAKEFLAGS` (`JobGrant`).
package protocol JobSlots: AnyObject, Sendable {
  /// The `-jN` the tools are told.
  var jobs: Int { get }
  /// A slot for a task about to start here; false while every slot is taken (by tasks or by
  /// their tools): `waitForSlot` then says when one may be free.
  func take() -> Bool
  /// The slot of a task that ended here.
  func give()
  /// The scheduler started all it could: slots nothing waits for go to running tasks' tools.
  func lend()
  /// Returns once `take` may succeed (or the caller is cancelled).
  func waitForSlot() async
  /// The jobserver a task starting now hands its processes in `style`; nil when it gets none.
  func grant(_ style: JobGrant.Style) throws(JobserverError) -> JobGrant?
  /// The task ended: what was lent to it comes back whole. Its pool may go to the next task
  /// only when `leftBehind` is false: no process of the task outlived it (one that did may
  /// still hold the pool, and write tokens into it that were never lent).
  func end(_ grant: JobGrant, leftBehind: Bool)
  /// The run ended: the jobserver's files go.
  func close()
}

/// What a task's processes get of a jobserver: `MAKEFLAGS` and, for the descriptor form, the
/// two descriptors they inherit.
package struct JobGrant: Sendable {
  package enum Style: Sendable, Equatable {
    case fifo
    case pipe
  }

  package let auth: MakeFlags.Auth
  /// Passed to the task's processes at the same numbers (`ProcessSpec.inherited`).
  package let inherited: [Int32]
  /// Runner's own handle on the task's pool; nil when the task shares a jobserver it does not own.
  let pool: Int32?
  let jobs: Int
  /// The `MAKEFLAGS` of the make that runs runner, passed on as it was written (client mode).
  var parentFlags: String? = nil

  /// The fifo's path, for the fifo form.
  package var path: String? {
    if case .fifo(let path) = auth { path } else { nil }
  }

  /// The task's `MAKEFLAGS`: its own flags (if any) with this jobserver; make's own, unchanged,
  /// when the task did not set its own (client mode).
  package func makeFlags(_ own: String?) -> String {
    if let parentFlags, own == nil || own == parentFlags { return parentFlags }
    return MakeFlags.adding(jobs: jobs, auth: auth, to: own)
  }
}

/// A jobserver could not be set up for a task.
package struct JobserverError: Error, Sendable, CustomStringConvertible {
  package let description: String
  /// Out of descriptors (EMFILE, ENFILE): the moment's, not the machine's.
  package var isExhaustion = false
}
