import Synchronization

/// Runs child processes from one dedicated thread that spawns them and multiplexes their output.
///
/// Every spawn happens on the reactor's own permanent thread: `PR_SET_PDEATHSIG` fires when the
/// *thread* that forked exits, so spawning from Swift's cooperative pool (whose threads may come
/// and go) would kill tasks at random. The same thread watches each child's pipes and pidfd with
/// `epoll`, splits output into lines for the sinks, and enforces cancellation deadlines.
package final class ProcessReactor: Sendable {
  /// The reactor runner uses; its thread starts on first use and lives as long as the process.
  package static let shared = ProcessReactor()

  private let inbox: ReactorInbox
  /// Runs Swift jobs on the reactor thread, between its epoll batches.
  ///
  /// The scheduler loop and shell operations prefer it: a process exit, the scheduler's
  /// reaction and the next spawn then happen on one thread, with no thread hop or context
  /// switch in between — the single event loop that makes ninja fast, in Swift concurrency.
  /// Jobs on it must not block (CPU-heavy work goes to `ComputeExecutor`).
  package let executor: ReactorExecutor
  let groups = ProcessGroupRegistry()
  private let locator = ExecutableLocator()
  private let nextID = Atomic<UInt64>(1)

  /// Starts a reactor with its own thread. Tests use separate reactors; runner uses `shared`.
  init() {
    inbox = ReactorInbox()
    executor = ReactorExecutor(inbox: inbox)
    ReactorLoop.start(inbox: inbox, executor: executor.asUnownedTaskExecutor(), groups: groups, locator: locator)
  }

  /// Spawns `spec` and waits for the process to exit. Output lines go to `sink`.
  ///
  /// The run ends when the direct child exits: output still buffered in its pipes then is
  /// delivered, but a background grandchild that keeps the pipes open does not hold the run
  /// (see `reapLeftovers(grace:)`). Every `sink` call happens on the reactor thread before this
  /// function returns.
  ///
  /// If the calling Task is cancelled: SIGTERM to the child's whole process group, then SIGKILL after
  /// `grace`; the result is then the child's real outcome, normally `.signaled`. A Task that is
  /// already cancelled starts nothing and gets `.signaled(SIGTERM)`.
  ///
  /// - Parameters:
  ///   - spec: what to run; `arguments[0]` without a `/` is searched in the spec's `PATH`.
  ///   - sink: receives stdout and stderr lines, on the reactor thread, in arrival order.
  ///   - grace: how long a cancelled process group has between SIGTERM and SIGKILL.
  /// - Returns: how the direct child ended.
  /// - Throws: `SpawnError` when the process could not be started.
  package func run(_ spec: ProcessSpec, sink: some OutputLineSink, grace: Duration) async throws(SpawnError)
    -> ProcessOutcome
  {
    let resolved = try locator.resolve(spec.arguments.first ?? "", searchPath: spec.environment["PATH"])
    let plan = SpawnPlan(spec, resolvedPath: resolved.path, searchedPath: resolved.searched)
    let ticket = JobTicket(id: nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
    let inbox = self.inbox
    let result = await withTaskCancellationHandler {
      await withUnsafeContinuation { continuation in
        let request = SpawnRequest(ticket: ticket, plan: plan, sink: sink, grace: grace, continuation: continuation)
        inbox.submit(.spawn(request))
      }
    } onCancel: {
      if ticket.cancel() { inbox.submit(.cancel(ticket.id)) }
    }
    return try result.get()
  }

  /// Ctrl-Z: stops every process group of the run with SIGTSTP, then runner itself (SIGSTOP);
  /// when runner is continued (`fg`), continues them (SIGCONT). Returns once continued.
  package func suspendAll() {
    for pgid in groups.allGroups() { Kernel.killGroup(pgid, Kernel.sigtstp) }
    Kernel.stopSelf()
    for pgid in groups.allGroups() { Kernel.killGroup(pgid, Kernel.sigcont) }
  }

  /// Sends SIGKILL immediately to every live process group started by this reactor that is still being graced (second Ctrl-C).
  package func killAllNow() {
    for pgid in groups.gracedGroups() { Kernel.killGroup(pgid, Kernel.sigkill) }
  }

  /// At the end of a run: SIGTERM every process group this reactor started whose members are still alive
  /// (background grandchildren left behind by finished tasks), SIGKILL after grace. Must not hang.
  ///
  /// Groups of cancelled runs still within their grace period are included: their leader may
  /// have exited on SIGTERM while a member that ignores it lives on, and runner must not exit
  /// before that member's SIGKILL is due.
  ///
  /// Returns once every such group is gone or `grace` has passed and SIGKILL was sent (the
  /// kernel finishes killing asynchronously). Cancelling the calling Task skips the rest of the
  /// grace.
  package func reapLeftovers(grace: Duration) async {
    let candidates = Set(groups.takeLeftovers() + groups.gracedGroups())
    var alive = candidates.filter { Kernel.killGroup($0, Kernel.sigterm) == 0 }
    guard !alive.isEmpty else { return }
    for pgid in alive { Kernel.killGroup(pgid, Kernel.sigcont) }
    groups.startGrace(alive)
    defer { groups.endGrace(alive) }
    let deadline = ContinuousClock.now.advanced(by: grace)
    while !alive.isEmpty, ContinuousClock.now < deadline {
      // Polling: these groups are not our children, so no pidfd or SIGCHLD tells us they died.
      if (try? await Task.sleep(for: .milliseconds(10))) == nil { break }
      alive = alive.filter(GroupLiveness.hasLiveMember)
    }
    for pgid in alive { Kernel.killGroup(pgid, Kernel.sigkill) }
  }
}
