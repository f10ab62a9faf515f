import Glibc
import RunnerBasics

/// The reactor thread: owns every live child and is the only code that touches them.
///
/// Not Sendable on purpose: after `start` hands it to its thread, nothing else holds it.
final class ReactorLoop {
  private static let wakeToken = UInt64.max
  static let readBufferSize = 1 << 20
  private static let maxEvents: Int32 = 64

  private let inbox: ReactorInbox
  private let executor: UnownedTaskExecutor
  private let groups: ProcessGroupRegistry
  private let locator: ExecutableLocator
  private let epoll: Int32
  private let devNull: Int32
  private var children: [UInt64: RunningChild] = [:]
  /// SIGKILL deadlines of cancelled runs, in monotonic nanoseconds.
  private var deadlines: [(at: Int64, pgid: Int32)] = []
  private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readBufferSize, alignment: 16)
  private var commands: [ReactorCommand] = []
  /// Pipes of a fast writer set aside after a small read, until `at` (monotonic nanoseconds),
  /// so that the writer fills the pipe meanwhile and the next read takes much at once: a task
  /// that prints 256 MiB in 8 KiB writes costs one wake-up per few hundred KiB, not per write.
  private var parked: [(at: Int64, token: UInt64, fd: Int32)] = []
  /// How long a pipe is set aside.
  static let parkNanoseconds: Int64 = 250_000
  /// A read below this from a stream that has given at least `bulkStream` bytes sets it aside,
  /// if its pipe holds at least half as much (a 64 KiB pipe would fill and stall its writer).
  static let smallRead = 64 << 10
  static let bulkStream = 1 << 20
  /// Spawns that failed for want of descriptors or processes (EMFILE, ENFILE, EAGAIN) while
  /// other children ran: they start, in order, as children end and give theirs back.
  private var waiting: [SpawnRequest] = []

  private init(
    inbox: ReactorInbox, executor: UnownedTaskExecutor, groups: ProcessGroupRegistry, locator: ExecutableLocator
  ) {
    self.inbox = inbox
    self.executor = executor
    self.groups = groups
    self.locator = locator
    epoll = Kernel.epollCreate()
    devNull = Kernel.openDevNull()
    precondition(epoll >= 0 && devNull >= 0, "cannot set up the process reactor")
    Kernel.epollAdd(epoll, fd: inbox.wakeFD, token: Self.wakeToken)
  }

  /// Starts the permanent reactor thread.
  static func start(
    inbox: ReactorInbox, executor: UnownedTaskExecutor, groups: ProcessGroupRegistry, locator: ExecutableLocator
  ) {
    let loop = ReactorLoop(inbox: inbox, executor: executor, groups: groups, locator: locator)
    let context = Unmanaged.passRetained(loop).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(
      &thread, nil,
      { context in
        let loop = Unmanaged<ReactorLoop>.fromOpaque(context!).takeRetainedValue()
        loop.runForever()
      }, context)
    precondition(rc == 0, "cannot start the process reactor thread: \(Kernel.describe(errno: rc))")
    pthread_detach(thread)
  }

  private func runForever() -> Never {
    let tokens = UnsafeMutablePointer<UInt64>.allocate(capacity: Int(Self.maxEvents))
    let events = UnsafeMutablePointer<UInt32>.allocate(capacity: Int(Self.maxEvents))
    inbox.registerReactorThread()
    Terminal.holdWrites()
    Kernel.acceptChildExits()
    while true {
      Terminal.releaseHeld()
      let count = Kernel.epollWait(
        epoll, tokens: tokens, events: events, max: Self.maxEvents, timeoutNanoseconds: nextTimeout())
      for index in 0..<Int(max(count, 0)) {
        handle(token: tokens[index], events: events[index])
      }
      fireDeadlines()
      unpark()
      drainOwnSubmissions()
    }
  }

  /// Runs what this thread queued for itself (jobs resumed by a child's exit, the spawns they
  /// ask for) until nothing is left, before sleeping in epoll again.
  private func drainOwnSubmissions() {
    while true {
      inbox.takeQueued(swappingWith: &commands)
      if commands.isEmpty { return }
      for command in commands { perform(command) }
      commands.removeAll(keepingCapacity: true)
    }
  }

  /// - Parameter events: 1 readable, 2 hung up or failed (both: data is left before the end).
  private func handle(token: UInt64, events: UInt32) {
    if token == Self.wakeToken {
      inbox.takeAll(swappingWith: &commands)
      for command in commands { perform(command) }
      commands.removeAll(keepingCapacity: true)
      return
    }
    // Events of a child finished earlier in this batch find no record: its fds are closed.
    guard let child = children[token >> 2] else { return }
    let kind = Int(token & 3)
    if kind == 2 {
      finish(child)
    } else if events == 2 {
      // Hung up with nothing left to read (the usual end of a quiet task): the read that
      // would return end-of-file is skipped.
      child.closePipe(kind)
    } else {
      let before = child.delivered[kind]
      guard child.read(stream: kind, buffer: readBuffer, limit: 4 * Self.readBufferSize) else { return }
      let got = child.delivered[kind] - before
      if kind == 0 { child.growStdoutIfChatty() }
      if got > 0, got < Self.smallRead, child.delivered[kind] >= Self.bulkStream,
        child.pipeCapacity(kind) >= Self.bulkStream / 2
      {
        let fd = child.pipes[kind]
        Kernel.epollRemove(epoll, fd: fd)
        parked.append((Kernel.now() + Self.parkNanoseconds, token, fd))
      }
    }
  }

  /// Watches the pipes set aside whose time has come again (what they hold is read on the next
  /// wait); forgets those whose child ended meanwhile (its pipes were read to the end then).
  private func unpark() {
    guard !parked.isEmpty else { return }
    let now = Kernel.now()
    parked.removeAll { entry in
      guard entry.at <= now else { return false }
      if let child = children[entry.token >> 2], child.pipes[Int(entry.token & 3)] == entry.fd {
        Kernel.epollAdd(epoll, fd: entry.fd, token: entry.token)
      }
      return true
    }
  }

  private func perform(_ command: ReactorCommand) {
    switch command {
    case .job(let job):
      job.runSynchronously(on: executor)
    case .spawn(let request):
      spawn(request)
    case .cancel(let id):
      if let queued = waiting.firstIndex(where: { $0.ticket.id == id }) {
        let request = waiting.remove(at: queued)
        request.ticket.finish()
        request.continuation.resume(returning: .success(.signaled(Kernel.sigterm)))
        return
      }
      guard let child = children[id], !child.cancelled else { return }
      child.cancelled = true
      Kernel.killGroup(child.pid, Kernel.sigterm)
      // A stopped task (one that read the terminal from the background) acts on it only once
      // continued: else it would wait for the grace period's SIGKILL. The shell's `kill` does the same.
      Kernel.killGroup(child.pid, Kernel.sigcont)
      groups.startGrace(CollectionOfOne(child.pid))
      deadlines.append((Kernel.now() + Self.nanoseconds(child.grace), child.pid))
    }
  }

  /// - Returns: false when the spawn waits for a child to end (`waiting`).
  @discardableResult
  private func spawn(_ request: SpawnRequest) -> Bool {
    guard request.ticket.start() else {
      request.continuation.resume(returning: .success(.signaled(Kernel.sigterm)))
      return true
    }
    var plan = request.plan
    // What runner printed (the task's `▶` line) reaches the terminal before the task does.
    if plan.spec.interactive { Terminal.releaseHeld() }
    var result = Kernel.spawn(plan, devnull: plan.spec.interactive ? -1 : devNull)
    // ETXTBSY: the file was just written and another process's fork still holds a write
    // descriptor to it for an instant (the classic fork/exec race); try again briefly, as Go does.
    var busyRetries = 0
    while case .failure(let failure) = result, failure.stage == .exec, failure.errno == Kernel.etxtbsy,
      busyRetries < 10
    {
      busyRetries += 1
      usleep(UInt32(1000 * busyRetries))
      result = Kernel.spawn(plan, devnull: plan.spec.interactive ? -1 : devNull)
    }
    if case .failure(let failure) = result, failure.stage == .exec {
      if failure.errno == Kernel.enoent, plan.searchedPath {
        // The cached PATH answer went stale; the next run searches again.
        locator.forget(path: plan.resolvedPath)
      } else if failure.errno == Kernel.enoexec {
        // A directly exec'd script without `#!` still runs, as it would under `sh -c`.
        plan = plan.shellFallback()
        result = Kernel.spawn(plan, devnull: plan.spec.interactive ? -1 : devNull)
      }
    }
    switch result {
    case .failure(let failure)
    where failure.stage == .parent && Kernel.isExhaustion(failure.errno) && !children.isEmpty:
      // Out of descriptors (or processes) with children running: wait for one to end
      // instead of failing the task.
      waiting.append(request)
      return false
    case .failure(let failure):
      request.ticket.finish()
      request.continuation.resume(returning: .failure(Self.error(for: failure, plan: plan)))
    case .success(let spawned):
      let child = RunningChild(child: spawned, request: request)
      children[child.id] = child
      groups.started(child.pid)
      let base = child.id << 2
      Kernel.epollAdd(epoll, fd: spawned.stdout, token: base)
      Kernel.epollAdd(epoll, fd: spawned.stderr, token: base | 1)
      Kernel.epollAdd(epoll, fd: spawned.pidfd, token: base | 2)
    }
    return true
  }

  /// Starts what waits for resources, in order, until one has to wait again.
  private func retryWaiting() {
    while !waiting.isEmpty {
      let request = waiting.removeFirst()
      guard spawn(request) else {
        // It went back to the end; put it first again.
        waiting.insert(waiting.removeLast(), at: 0)
        return
      }
    }
  }

  /// The direct child exited: the run is over whatever its descendants still hold open.
  private func finish(_ child: RunningChild) {
    child.drainAndClose(buffer: readBuffer)
    let outcome = Kernel.reap(pidfd: child.pidfd) ?? .signaled(Kernel.sigkill)
    if child.interactive { Kernel.reclaimTerminal() }
    Kernel.close(child.pidfd)
    children[child.id] = nil
    groups.ended(child.pid)
    // A live group after its leader's exit means background processes: `reapLeftovers` ends them.
    let groupAlive = GroupLiveness.hasLiveMember(child.pid)
    if groupAlive { groups.noteOutlived() }
    if !child.cancelled, groupAlive { groups.addLeftover(child.pid) }
    if child.cancelled, !groupAlive {
      // Nothing left to SIGKILL; dropping the deadline also avoids signalling a reused group id.
      deadlines.removeAll { $0.pgid == child.pid }
      groups.endGrace(CollectionOfOne(child.pid))
    }
    child.ticket.finish()
    child.continuation.resume(returning: .success(outcome))
    if !waiting.isEmpty { retryWaiting() }
  }

  private func fireDeadlines() {
    guard !deadlines.isEmpty else { return }
    let now = Kernel.now()
    deadlines.removeAll { deadline in
      guard deadline.at <= now else { return false }
      Kernel.killGroup(deadline.pgid, Kernel.sigkill)
      groups.endGrace(CollectionOfOne(deadline.pgid))
      return true
    }
  }

  /// Nanoseconds until the next deadline or parked pipe; -1 for none.
  private func nextTimeout() -> Int64 {
    let earliest = min(deadlines.map(\.at).min() ?? .max, parked.map(\.at).min() ?? .max)
    guard earliest != .max else { return -1 }
    return max(0, earliest - Kernel.now())
  }

  private static func nanoseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    return max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
  }

  private static func error(for failure: Kernel.SpawnFailure, plan: SpawnPlan) -> SpawnError {
    switch failure.stage {
    case .workingDirectory:
      return .workingDirectory(plan.workingDirectoryPath ?? "", errno: failure.errno)
    case .exec where failure.errno == Kernel.enoent:
      return .executableNotFound(plan.searchedPath ? plan.command : plan.resolvedPath)
    case .exec where failure.errno == Kernel.eacces:
      return .permissionDenied(plan.resolvedPath)
    case .exec:
      return .failed(plan.resolvedPath, errno: failure.errno)
    case .parent, .setup:
      return .failed(plan.command, errno: failure.errno)
    }
  }
}
