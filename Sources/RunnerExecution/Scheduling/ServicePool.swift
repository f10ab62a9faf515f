import RunnerBasics
import RunnerEvents
import RunnerProcess
import Synchronization

/// `--watch`: services kept up from one run to the next.
///
/// A run that no longer needs a service that is up parks it here rather than stopping it; the
/// next run that needs it adopts it (ready at once). The watch stops a kept service when its
/// sources change (the run then starts it again) and stops them all when it ends. A kept
/// service that ends on its own between runs is said, and the next run that needs it starts
/// it again. Its output goes to the run in progress, else straight to stdout, prefixed.
package final class ServicePool: Sendable {
  private let kept = Mutex<[String: Kept]>([:])
  /// The run in progress: its observer and start, for kept services' output.
  private let current = Mutex<(observer: any RunObserver, clock: any RunClock, start: ContinuousClock.Instant)?>(nil)

  package init() {}

  /// One kept service: its attempt, and the scheduler loop that waits for it to end or be parked.
  final class Kept: Sendable {
    let name: String
    let handle: Task<Scheduler.Completion, Never>
    private let state = Mutex(State())

    struct State {
      /// How the attempt ended, once it has.
      var ended: Scheduler.Completion?
      var waiter: UnsafeContinuation<Scheduler.Completion, Never>?
      /// The task the waiting run knows it as.
      var task = 0
      var parked = false
      /// Its gates passed (set by the scheduler): a cancelled run may keep it.
      var ready = false
      /// Adopted by a run (between `adopt` and parking).
      var inRun = true
      var stopping = false
    }

    init(name: String, handle: Task<Scheduler.Completion, Never>) {
      self.name = name
      self.handle = handle
    }

    /// Waits until the service ends (its completion) or a run parks it (`.parked(task)`).
    /// Cancelling the caller (the run stops) parks it when it is ready and stops it otherwise,
    /// so the wait always ends.
    func next(_ task: Int) async -> Scheduler.Completion {
      await withTaskCancellationHandler {
        await withUnsafeContinuation { continuation in
          let now: Scheduler.Completion? = state.withLock { state in
            if let ended = state.ended { return ended }
            if state.parked { return .parked(task) }
            state.waiter = continuation
            state.task = task
            return nil
          }
          if let now { continuation.resume(returning: now) }
        }
      } onCancel: {
        if state.withLock({ $0.ready }) { park(task) } else { handle.cancel() }
      }
    }

    func markReady() { state.withLock { $0.ready = true } }

    /// Whether a run holds it now (its output goes to that run).
    var inRun: Bool { state.withLock { $0.inRun && !$0.parked } }

    /// The run no longer needs it: it stays up, and the run's wait ends.
    func park(_ task: Int) {
      let waiter = state.withLock { state -> UnsafeContinuation<Scheduler.Completion, Never>? in
        guard state.ended == nil, !state.parked else { return nil }
        state.parked = true
        state.inRun = false
        defer { state.waiter = nil }
        return state.waiter
      }
      waiter?.resume(returning: .parked(task))
    }

    /// Taken by a run: nil when it has ended meanwhile.
    func adopt() -> Bool {
      state.withLock { state in
        guard state.ended == nil, !state.stopping else { return false }
        state.parked = false
        state.inRun = true
        return true
      }
    }

    /// The attempt ended. Returns true when no run was there to see it (said by the pool).
    func ended(_ completion: Scheduler.Completion) -> Bool {
      let (waiter, unseen) = state.withLock { state in
        state.ended = completion
        defer { state.waiter = nil }
        return (state.waiter, !state.inRun && !state.stopping)
      }
      waiter?.resume(returning: completion)
      return unseen && waiter == nil
    }

    /// Stops it (SIGTERM to its group, grace, SIGKILL) and waits until it is gone.
    func stop() async {
      state.withLock { $0.stopping = true }
      handle.cancel()
      _ = await handle.value
    }
  }

  /// Keeps a service the scheduler has just started. Its end is watched for.
  func keep(_ name: String, handle: Task<Scheduler.Completion, Never>) -> Kept {
    let service = Kept(name: name, handle: handle)
    kept.withLock { $0[name] = service }
    Task {
      let completion = await handle.value
      let unseen = service.ended(completion)
      self.kept.withLock { if $0[name] === service { $0[name] = nil } }
      guard unseen else { return }
      Terminal.write("\nservice '\(name)' ended on its own; the next run that needs it starts it again\n", to: 1)
    }
    return service
  }

  /// The kept service named so, still up, now the run's; nil when there is none.
  func adopt(_ name: String) -> Kept? {
    kept.withLock { kept in
      guard let service = kept[name] else { return nil }
      if service.adopt() { return service }
      kept[name] = nil
      return nil
    }
  }

  /// A service the run stopped rather than kept (it was not ready, or its gates failed).
  func forget(_ service: Kept) {
    kept.withLock { if $0[service.name] === service { $0[service.name] = nil } }
  }

  /// The names of the services kept up now.
  package var names: [String] { kept.withLock { Array($0.keys) }.sorted() }

  /// Stops the kept services named (all of them by default) and waits until they are gone.
  package func stop(_ names: [String]? = nil) async {
    let stopping = kept.withLock { kept in
      let chosen = names ?? Array(kept.keys)
      return chosen.compactMap { kept.removeValue(forKey: $0) }
    }
    await withTaskGroup(of: Void.self) { group in
      for service in stopping { group.addTask { await service.stop() } }
    }
  }

  /// A run starts (`observer` gets kept services' output from now) or ends (nil).
  func attach(_ observer: (any RunObserver)?, clock: any RunClock, start: ContinuousClock.Instant) {
    current.withLock { $0 = observer.map { ($0, clock, start) } }
  }

  /// Where a kept service's output goes: the run in progress, else stdout.
  func relay(name: String) -> any RunObserver { Relay(pool: self, name: name) }

  /// Whether the service named so is held by the run in progress.
  func inRun(_ name: String) -> Bool { kept.withLock { $0[name] }?.inRun ?? false }

  struct Relay: RunObserver {
    let pool: ServicePool
    let name: String

    func record(_ event: RunEvent) {
      guard pool.inRun(name), let (observer, clock, start) = pool.current.withLock({ $0 }) else { return }
      observer.record(RunEvent(time: clock.now - start, task: event.task, kind: event.kind))
    }

    var wantsUnfinished: Bool {
      pool.inRun(name) && (pool.current.withLock { $0 }?.0.wantsUnfinished ?? false)
    }

    func unfinished(task: Int, stream: OutputStreamKind, bytes: UnsafeRawBufferPointer) {
      guard pool.inRun(name), let (observer, _, _) = pool.current.withLock({ $0 }) else { return }
      observer.unfinished(task: task, stream: stream, bytes: bytes)
    }

    func output(task: Int, stream: OutputStreamKind, lines: OutputLines, time: Duration) {
      // A run that does not hold it (grouped or quiet) would keep its lines until it ends there.
      if pool.inRun(name), let (observer, clock, start) = pool.current.withLock({ $0 }) {
        return observer.output(task: task, stream: stream, lines: lines, time: clock.now - start)
      }
      let head = Array((name + " | ").utf8)
      var text: [UInt8] = []
      for line in lines.bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
        text += head
        text += line
        text.append(0x0A)
      }
      text.withUnsafeBufferPointer { Terminal.write($0, to: 1) }
    }
  }
}
