import RunnerBasics
import RunnerEvents
import RunnerModel
import RunnerProcess

/// The scheduler's bookkeeping: each task's state, what it waits on, who holds which
/// resource. Plain synchronous code, owned by the scheduler loop alone.
struct RunState {
  let selection: GraphSelection
  let failFast: Bool
  var states: [TaskState]
  var waitingOn: [Int]
  /// Per task, read on every state change (a `TaskDefinition` is a large value to fetch).
  private let isCleanup: [Bool]
  private let isService: [Bool]
  private let isInteractive: [Bool]
  /// For cleanups (`always: true`): dependencies not yet ended, whatever their outcome.
  private var unfinished: [Int]
  private(set) var cleanupsAbandoned = false
  /// For a service: how many tasks that run something and depend on it (directly or through
  /// groups) have not ended. Nil for a service that nothing holds (`runner dev`): kept up.
  var holders: [Int: Int] = [:]
  /// The services each task holds.
  private var held: [Int: [Int]] = [:]
  /// Services whose gates passed, until they end.
  var servicesUp = Set<Int>()
  /// Services started (up or starting), until they end.
  var servicesRunning = Set<Int>()
  /// Services to stop now (`takeServicesToStop`), and those asked to stop.
  var toStop: [Int] = []
  var stopAsked = Set<Int>()
  /// Under --watch: services the run no longer needs that were not ready yet.
  var parkWhenReady = Set<Int>()
  /// Services whose gates failed: stopped, and failed.
  var gateFailures: [Int: String] = [:]
  /// An interactive task that waits for the running tasks to end; then the one running.
  private(set) var interactiveWaiting: Int?
  private(set) var interactiveRunning: Int?
  /// Called for a service's own events (ready, stopping).
  var onServiceEvent: (Int, RunEvent.Kind) -> Void = { _, _ in }
  var results: [(any OperationResult)?]
  /// Ready tasks for local slots, and for remote ones.
  var ready: ReadyQueue
  var readyRemote: ReadyQueue
  /// Per task: it takes a remote slot (`--remote-jobs`) rather than a local one (`-j`).
  private(set) var remoteSlot: [Bool]
  /// The most tasks in local slots, and in remote ones.
  let localLimit: Int
  let remoteLimit: Int
  var resourceBlocked: [Int] = []
  var resourcesInUse = Set<String>()
  private(set) var gated: [Int] = []
  var started: [ContinuousClock.Instant?]
  let clock: any RunClock
  private var attempts: [Int]
  /// Tasks executing, in either kind of slot; and those in remote slots.
  var running = 0
  private(set) var runningRemote = 0
  private(set) var gating = 0
  private(set) var stopping = false
  private var failures: [RunSummary.Failure] = []
  private var deadlock: String?
  /// The signal of a Ctrl-C an interactive task received at its terminal and ended by.
  private var interruption: Int32?
  /// Per task: the run needs it. A task reached only through task calls is needed once a
  /// caller reaches the call; until then it does not start, and one never called is skipped.
  var wanted: [Bool]
  /// Orderings (a called task after its caller's part) this run waits on: the earlier task
  /// needed and not ended when counted; and per task, how many of them have not ended.
  var orderingsCounted = Set<UInt64>()
  var orderWait: [Int: Int] = [:]
  /// Called for every state change: task, new state, attempt, reason.
  var onTransition: (Int, TaskState, Int, String?) -> Void = { _, _, _, _ in }

  /// `--watch`: a service the run no longer needs is parked (kept up for the next run).
  let parksServices: Bool
  /// The job slots shared with the tasks' tools (the jobserver); nil: `localLimit` alone.
  let jobSlots: (any JobSlots)?
  /// A ready task waits for a slot the tasks' tools hold (`JobSlots.waitForSlot`).
  var waitsForSlot = false
  /// The tasks holding a job slot.
  var slotsHeld = Set<Int>()

  /// - Parameters:
  ///   - localLimit: the most tasks executing here at once (`-j`).
  ///   - remote: per task, whether it runs remotely, in one of `remoteLimit` slots.
  ///   - clock: the run's clock, for how long a task took.
  init(
    selection: GraphSelection, failFast: Bool, parksServices: Bool = false, localLimit: Int = .max,
    remote: [Bool]? = nil, remoteLimit: Int = 0, clock: any RunClock = SystemClock(), jobSlots: (any JobSlots)? = nil
  ) {
    self.jobSlots = jobSlots
    self.clock = clock
    self.selection = selection
    self.failFast = failFast
    self.parksServices = parksServices
    self.localLimit = localLimit
    self.remoteLimit = remoteLimit
    let count = selection.graph.count
    states = [TaskState](repeating: .pending, count: count)
    waitingOn = selection.graph.dependencies.map(\.count)
    wanted = Self.wantedAtStart(selection)
    if selection.graph.hasOrderings {
      for task in selection.members {
        for earlier in selection.graph.runsAfter(task) where selection.isMember[earlier] && wanted[earlier] {
          orderWait[task, default: 0] += 1
          orderingsCounted.insert(Self.edge(earlier, task))
        }
      }
    }
    isCleanup = selection.graph.tasks.map(\.always)
    isService = selection.graph.tasks.map(\.isService)
    isInteractive = selection.graph.tasks.map(\.isInteractive)
    unfinished = waitingOn
    results = [(any OperationResult)?](repeating: nil, count: count)
    ready = ReadyQueue(priority: selection.graph.tasks.map(\.priority), height: selection.height)
    readyRemote = ready
    remoteSlot = remote ?? [Bool](repeating: false, count: count)
    started = [ContinuousClock.Instant?](repeating: nil, count: count)
    attempts = [Int](repeating: 1, count: count)
    let graph = selection.graph
    let isGroup = { (task: Int) -> Bool in if case .group = graph[task].action { true } else { false } }
    // Kept up until a signal (`runner dev`): services under a target that holds nothing but
    // services and groups of them.
    var keptUp = Set<Int>()
    for target in selection.targets {
      var closure = Set<Int>()
      var work = [target]
      while let next = work.popLast() {
        guard closure.insert(next).inserted else { continue }
        if isGroup(next) { work.append(contentsOf: graph.dependencies[next]) }
      }
      // Under --watch the watch keeps them up, not the run.
      if !parksServices, closure.allSatisfy({ isGroup($0) || graph[$0].isService }) {
        keptUp.formUnion(closure.filter { graph[$0].isService })
      }
    }
    for service in selection.members where graph[service].isService {
      var seen = Set<Int>()
      var work = Array(graph.dependents[service])
      while let next = work.popLast() {
        // A cleanup waits for the service to end: it cannot hold it up.
        guard selection.isMember[next], !graph[next].always, seen.insert(next).inserted else { continue }
        if isGroup(next) {
          work.append(contentsOf: graph.dependents[next])
        } else {
          held[next, default: []].append(service)
        }
      }
      let count = seen.filter { !isGroup($0) }.count
      // Nil: kept up; 0: nothing needs it, it stops as soon as it starts.
      if count > 0 || !keptUp.contains(service) { holders[service] = count }
    }
  }

  var graph: TaskGraph { selection.graph }

  mutating func seedReady() {
    for task in selection.members { readyIfFree(task) }
  }

  /// `task` becomes ready if it is pending, needed, and waits on nothing: its dependencies
  /// succeeded (a cleanup's ended) and the caller's parts it comes after ended.
  mutating func readyIfFree(_ task: Int) {
    guard states[task] == .pending, wanted[task], orderWait[task] ?? 0 == 0 else { return }
    if isCleanup[task] {
      guard unfinished[task] == 0, !cleanupsAbandoned else { return }
    } else {
      guard waitingOn[task] == 0, !stopping else { return }
    }
    becomeReady(task)
  }

  mutating func set(_ task: Int, _ state: TaskState, reason: String? = nil) {
    states[task] = state
    onTransition(task, state, attempts[task], reason)
    guard state.isFinal else { return }
    for service in held[task] ?? [] {
      holders[service]! -= 1
      if holders[service] == 0, servicesRunning.contains(service) { askToStop(service) }
    }
    // A cleanup waits for its dependencies to end, not to succeed.
    for dependent in graph.dependents[task] where isCleanup[dependent] && selection.isMember[dependent] {
      unfinished[dependent] -= 1
      readyIfFree(dependent)
    }
    // A called task waits for the caller's part before the call to end, however it ended.
    for later in graph.runsBefore(task) where orderingsCounted.remove(Self.edge(task, later)) != nil {
      orderWait[later, default: 1] -= 1
      readyIfFree(later)
    }
  }

  /// Queues a ready task for the kind of slot it takes.
  mutating func enqueue(_ task: Int) {
    if remoteSlot[task] { readyRemote.insert(task) } else { ready.insert(task) }
  }

  /// Every queued task, of both kinds (the run stops).
  mutating func drainReady() -> [Int] { ready.drain() + readyRemote.drain() }

  mutating func becomeReady(_ task: Int) {
    // A service's gates are its readiness check, after it starts.
    if graph[task].waitFor.isEmpty || isService[task] {
      set(task, .ready)
      enqueue(task)
    } else {
      gated.append(task)
    }
  }

  /// Tasks whose dependencies are done but whose readiness gates must be checked first.
  /// `task` gives its resources back: tasks that waited for one may start.
  mutating func releaseResources(of task: Int) {
    guard !graph[task].resources.isEmpty else { return }
    resourcesInUse.subtract(graph[task].resources)
    for blocked in resourceBlocked { enqueue(blocked) }
    resourceBlocked.removeAll()
  }

  /// `task` succeeded (or, a service, is ready): its dependents stop waiting for it.
  mutating func releaseDependents(of task: Int) {
    for dependent in graph.dependents[task] where selection.isMember[dependent] && !isCleanup[dependent] {
      waitingOn[dependent] -= 1
      readyIfFree(dependent)
    }
  }

  mutating func takeGated() -> [Int] {
    defer { gated.removeAll() }
    gating += gated.count
    return gated
  }

  mutating func gateFinished(_ task: Int, failure: String?) {
    gating -= 1
    // Cancelled already, when the run stopped while its gate was checked.
    guard !states[task].isFinal else { return }
    if stopping, !isCleanup[task] || cleanupsAbandoned {
      set(task, .cancelled)
    } else if let failure {
      fail(task, .gate(failure), tail: [])
    } else {
      set(task, .ready)
      enqueue(task)
    }
  }

  /// The best ready task whose resources are free, marked executing; nil if none may start.
  /// Once the run stops, only cleanups are ready.
  mutating func nextToStart() -> Int? {
    // An interactive task runs alone (running services aside): nothing starts beside it, and
    // once one is ready, nothing more starts until the others have ended.
    guard interactiveRunning == nil else { return nil }
    if let waiting = interactiveWaiting {
      guard running == 0, takeSlot(for: waiting) else { return nil }
      interactiveWaiting = nil
      return start(waiting)
    }
    while let task = popBest() {
      if isInteractive[task], !stopping || isCleanup[task] {
        guard running == 0, takeSlot(for: task) else {
          interactiveWaiting = task
          return nil
        }
        return start(task)
      }
      let resources = graph[task].resources
      if resources.contains(where: resourcesInUse.contains) {
        resourceBlocked.append(task)
        continue
      }
      guard takeSlot(for: task) else {
        // Back to the queue; a remote slot may still take a task this pass.
        enqueue(task)
        continue
      }
      return start(task)
    }
    return nil
  }

  /// The best ready task a free slot can take: local or remote, whichever is better when both are free.
  private mutating func popBest() -> Int? {
    let localFree = running - runningRemote < localLimit && !waitsForSlot
    if runningRemote < remoteLimit, let candidate = readyRemote.first {
      if !localFree || ready.first.map({ readyRemote.before(candidate, $0) }) ?? true { return readyRemote.popFirst() }
    }
    return localFree ? ready.popFirst() : nil
  }

  private mutating func start(_ task: Int) -> Int {
    resourcesInUse.formUnion(graph[task].resources)
    running += 1
    if remoteSlot[task] { runningRemote += 1 }
    started[task] = clock.now
    set(task, .executing)
    if isInteractive[task] { interactiveRunning = task }
    if isService[task] {
      servicesRunning.insert(task)
      // Nothing left to hold it (its dependents ended while it waited): it starts to stop.
      if holders[task] == 0 { askToStop(task) }
    }
    return task
  }

  mutating func finished(
    _ task: Int, result: Result<any OperationResult, TaskFailure>, tail: [String], attempts count: Int
  ) {
    if isService[task] { return serviceEnded(task, result: result, tail: tail) }
    if interactiveRunning == task { interactiveRunning = nil }
    running -= 1
    if remoteSlot[task] { runningRemote -= 1 }
    releaseSlot(of: task)
    attempts[task] = count
    let elapsed = started[task].map { formatDuration(clock.now - $0) } ?? ""
    releaseResources(of: task)
    switch result {
    case .failure(.runLocally(let reason)):
      // Back to the queue, for a local slot this time.
      remoteSlot[task] = false
      if stopping, !isCleanup[task] { return set(task, .cancelled, reason: "cancelled after \(elapsed)") }
      set(task, .ready, reason: "to run here: \(reason)")
      enqueue(task)
    case .success(let value):
      results[task] = value
      if let skipped = value as? ConditionSkipped {
        set(task, .skipped, reason: skipped.reason)
        endLaterParts(of: task, .skipped, reason: skipped.reason, result: nil)
      } else if !graph.calls.isEmpty, let cached = value as? CachedResult, cached.decidesParts {
        set(task, .succeeded, reason: cached.note)
        endLaterParts(of: task, .succeeded, reason: cached.note, result: value)
      } else {
        set(task, .succeeded, reason: (value as? any RunNoteProviding)?.note ?? elapsed)
        for callee in graph.calledWhenEnded(task) { want(callee) }
      }
      releaseDependents(of: task)
    case .failure(.interrupted(let signal)):
      set(task, .cancelled, reason: "interrupted at its terminal after \(elapsed)")
      interruption = interruption ?? signal
      stop()
    // Once the run is stopping, a task that ends badly ends because we stopped it: a command
    // that catches SIGTERM and exits 1 is a cancelled sibling, not a second root cause.
    case .failure(let failure) where failure == .cancelled || (stopping && !isCleanup[task]):
      set(task, .cancelled, reason: "cancelled after \(elapsed)")
    case .failure(let failure):
      fail(task, failure, tail: tail, elapsed: elapsed)
      // A cleanup's list goes on after a failure: so do its calls.
      if isCleanup[task] { for callee in graph.calledWhenEnded(task) { want(callee) } }
    }
  }

  mutating func fail(_ task: Int, _ failure: TaskFailure, tail: [String], elapsed: String? = nil) {
    set(task, .failed, reason: failure.description + (elapsed.map { " (\($0))" } ?? ""))
    failures.append(RunSummary.Failure(task: task, reason: failure, tail: tail))
    if failFast {
      stop()
    } else {
      skipDependents(of: task)
    }
  }

  private mutating func skipDependents(of task: Int) {
    var work = Array(graph.dependents[task])
    while let next = work.popLast() {
      // A cleanup runs anyway; what depends on it waits for it as usual.
      guard selection.isMember[next], states[next] == .pending, !isCleanup[next] else { continue }
      set(next, .skipped, reason: "'\(graph[task].name)' failed")
      work.append(contentsOf: graph.dependents[next])
    }
  }

  /// Stop starting tasks: everything not yet started is cancelled. Running tasks and gate
  /// checks are cancelled by the scheduler and report back.
  ///
  /// Cleanups are kept: they run once their dependencies have ended (`abandonCleanups` drops them).
  mutating func stop() {
    guard !stopping else { return }
    stopping = true
    for service in servicesRunning { askToStop(service) }
    toStop += parkWhenReady
    parkWhenReady.removeAll()
    let isCleanup = isCleanup
    if let waiting = interactiveWaiting, !isCleanup[waiting] { interactiveWaiting = nil }
    let cleanups = drainReady().filter { isCleanup[$0] }
    resourceBlocked.removeAll { !isCleanup[$0] }
    gated.removeAll { !isCleanup[$0] }
    for task in selection.members where states[task] == .pending || states[task] == .ready {
      if !isCleanup[task] { set(task, .cancelled) }
    }
    for task in cleanups { enqueue(task) }
  }

  /// A second interrupt: cleanups that have not started never will.
  mutating func abandonCleanups() {
    guard !cleanupsAbandoned else { return }
    cleanupsAbandoned = true
    stop()
    interactiveWaiting = nil
    _ = drainReady()
    resourceBlocked.removeAll()
    gated.removeAll()
    for task in selection.members where states[task] == .pending || states[task] == .ready {
      set(task, .cancelled, reason: "skipped by a second interrupt")
    }
  }

  /// When nothing runs and nothing is being checked, every task should be final; if not,
  /// say what each waiting task waits on.
  func deadlockReport() -> String? {
    guard !stopping, servicesRunning.isEmpty else { return nil }
    let stuck = selection.members.filter { !states[$0].isFinal }
    guard !stuck.isEmpty else { return nil }
    let lines = stuck.prefix(20).map { task -> String in
      let waits =
        graph.dependencies[task].filter { states[$0] != .succeeded }
        + graph.runsAfter(task).filter { selection.isMember[$0] && !states[$0].isFinal }
      let what =
        waits.isEmpty
        ? "a resource (\(graph[task].resources.joined(separator: ", ")))"
        : waits.map { "'\(graph[$0].name)'" }.joined(separator: ", ")
      return "'\(graph[task].name)' (\(states[task].rawValue)) waits on \(what)"
    }
    return "nothing is running and nothing can start; " + lines.joined(separator: "; ")
      + (stuck.count > 20 ? "; and \(stuck.count - 20) more" : "")
  }

  mutating func declareDeadlock(_ report: String) {
    deadlock = report
    stop()
  }

  func summary() -> RunSummary {
    var summary = RunSummary()
    for task in selection.members { summary.counts[states[task], default: 0] += 1 }
    summary.failures = failures
    summary.deadlock = deadlock
    summary.interruption = interruption
    return summary
  }
}
