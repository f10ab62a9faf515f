import Glibc
import Synchronization

/// Work handed to the reactor thread.
enum ReactorCommand: Sendable {
  case spawn(SpawnRequest)
  case cancel(UInt64)
  /// A Swift job that prefers the reactor's executor (the scheduler loop and shell tasks).
  case job(UnownedJob)
}

/// One `run` call waiting for the reactor.
struct SpawnRequest: Sendable {
  var ticket: JobTicket
  var plan: SpawnPlan
  var sink: any OutputLineSink
  var grace: Duration
  var continuation: UnsafeContinuation<Result<ProcessOutcome, SpawnError>, Never>
}

/// The lock-protected queue other threads use to reach the reactor, plus the eventfd that wakes it.
final class ReactorInbox: Sendable {
  let wakeFD: Int32
  private let commands = Mutex<[ReactorCommand]>([])
  /// The reactor thread, once it runs: it drains the queue before it sleeps, so what it
  /// submits to itself needs no wakeup (the hot path: a job spawning the next task).
  private let reactorThread = Mutex<pthread_t?>(nil)

  init() {
    wakeFD = Kernel.eventFD()
    precondition(wakeFD >= 0, "eventfd failed: \(Kernel.describe(errno: -wakeFD))")
  }

  func submit(_ command: ReactorCommand) {
    let wasEmpty = commands.withLock { queue in
      queue.append(command)
      return queue.count == 1
    }
    // One wakeup per batch: the reactor empties the whole queue each time it wakes.
    if wasEmpty, !isReactorThread { Kernel.signal(eventFD: wakeFD) }
  }

  /// Called once, on the reactor thread.
  func registerReactorThread() {
    reactorThread.withLock { $0 = pthread_self() }
  }

  private var isReactorThread: Bool {
    guard let thread = reactorThread.withLock({ $0 }) else { return false }
    return pthread_equal(thread, pthread_self()) != 0
  }

  /// Takes everything queued without touching the eventfd (the reactor's own drain loop).
  func takeQueued(swappingWith spare: inout [ReactorCommand]) {
    commands.withLock { swap(&$0, &spare) }
  }

  /// Takes everything queued; `spare` is handed back empty with its capacity, to avoid allocating.
  func takeAll(swappingWith spare: inout [ReactorCommand]) {
    Kernel.drain(eventFD: wakeFD)
    commands.withLock { swap(&$0, &spare) }
  }
}
