import RunnerBasics
import RunnerCache
import RunnerEvents
import RunnerModel
import RunnerProcess

/// Runs a selected graph: at most `concurrency` operations at once, best-first among the
/// ready, fail-fast or keep-going, deadlock detection, and cancellation.
///
/// One async function owns all the state. A task its operation can conclude at once (up to
/// date, a group) finishes in the loop; every other attempt runs as a child task that returns
/// its outcome to the loop (`group.next()`), so no state is shared between threads.
package struct Scheduler: Sendable {
  package let selection: GraphSelection
  package let settings: RunSettings
  package let observer: any RunObserver
  let factory: OperationFactory
  let scratchDirectory: String
  let baseEnvironment: [String: String]
  /// Where a second interrupt reaches the cleanups.
  package let cleanups = CleanupControl()

  package init(
    selection: GraphSelection, settings: RunSettings, observer: any RunObserver, scratchDirectory: String,
    baseEnvironment: [String: String], factory: OperationFactory = OperationFactory()
  ) {
    self.selection = selection
    self.settings = settings
    self.observer = observer
    self.scratchDirectory = scratchDirectory
    self.baseEnvironment = baseEnvironment
    self.factory = factory
  }

  /// What a child task reports back to the loop.
  enum Completion: Sendable {
    case finished(Int, Result<any OperationResult, TaskFailure>, tail: [String], attempts: Int)
    case gate(Int, failure: String?)
    /// A service's readiness gates, checked after it started.
    case serviceGate(Int, failure: String?)
    /// A service the run no longer needs, kept up for the next run (`--watch`).
    case parked(Int)
    /// A job slot the tasks' tools held may be free (`JobSlots.waitForSlot`).
    case slot
  }

  /// Runs the selection to the end. Cancelling the calling task stops the run like fail-fast.
  ///
  /// Emits `runStarted` and every task event; `runFinished` is the caller's to emit, once it
  /// knows what only it can (which signal interrupted the run).
  package func run() async -> RunSummary {
    await withTaskExecutorPreference(factory.reactor.executor) { await runLoop() }
  }

  private func runLoop() async -> RunSummary {
    let clock = settings.clock
    let start = clock.now
    let remote = remoteSlots()
    var state = RunState(
      selection: selection, failFast: settings.failFast, parksServices: settings.services != nil,
      localLimit: settings.concurrency, remote: remote, remoteLimit: factory.remote.execution?.jobs ?? 0,
      clock: clock, jobSlots: settings.jobserver?.slots)
    // A ready task waits for a slot the tools hold: one child task waits for it at a time.
    var waitingForSlot = false
    let pool = settings.services
    pool?.attach(observer, clock: clock, start: start)
    defer { pool?.attach(nil, clock: clock, start: start) }
    // Services the pool keeps, by task: parked rather than stopped once up.
    var kept: [Int: ServicePool.Kept] = [:]
    let emit = { @Sendable (task: Int?, kind: RunEvent.Kind) in
      observer.record(RunEvent(time: clock.now - start, task: task, kind: kind))
    }
    emit(nil, .runStarted(tasks: selection.members.count, concurrency: settings.concurrency))
    Kernel.setPipeSize(Self.pipeSize(concurrency: settings.concurrency))
    state.onTransition = { task, newState, attempt, reason in
      emit(task, .state(newState, attempt: attempt, reason: reason))
    }
    state.onServiceEvent = { task, kind in emit(task, kind) }
    // Services run as tasks of their own, so each can be stopped alone.
    var services: [Int: Task<Completion, Never>] = [:]
    state.seedReady()
    factory.store?.startPrefetch(selection, workingDirectory: workingDirectory(of:))
    var concludedInline = 0

    await withTaskGroup(of: Completion.self) { group in
      while true {
        if Task.isCancelled, !state.stopping { state.stop() }
        if cleanups.abandoned { state.abandonCleanups() }
        for task in state.takeGated() {
          for gate in selection.graph[task].waitFor { emit(task, .waiting(gate: gate.description)) }
          let directory = workingDirectory(of: task)
          // A command gate sees what the task's commands would: the file's and the task's env.
          var environment = makeContext(task, state: state, start: start).environment()
          environment["RUNNER_TASK"] = selection.graph[task].declaredName
          // Gate checks may block briefly (a TCP connect): off the reactor thread.
          let always = selection.graph[task].always
          group.addTask(executorPreference: globalConcurrentExecutor) {
            let waiter = GateWaiter(
              gates: selection.graph[task].waitFor, directory: directory, environment: environment,
              clock: settings.clock, processes: factory.processes)
            // A cleanup's gates are checked after the run stopped too: outside its cancellation.
            let failure = always ? await Task { await waiter.wait() }.value : await waiter.wait()
            return .gate(task, failure: failure)
          }
        }
        while let task = state.nextToStart() {
          let context = makeContext(task, state: state, start: start)
          let operation: any TaskOperation
          switch factory.operation(for: selection.graph[task]).conclude(context) {
          case .finished(let result):
            state.finished(task, result: .success(result), tail: [], attempts: 1)
            // This thread is the reactor's too: let it serve running processes now and then.
            concludedInline += 1
            if concludedInline % 64 == 0 { await Task.yield() }
            if Task.isCancelled, !state.stopping { state.stop() }
            continue
          case .run(let prepared):
            operation = prepared
          }
          let events = { @Sendable (kind: RunEvent.Kind) in emit(task, kind) }
          let retries = selection.graph[task].retries
          if let pool, selection.graph[task].isService {
            let name = selection.graph[task].name
            if let service = pool.adopt(name) {
              kept[task] = service
              group.addTask { await service.next(task) }
              state.serviceReady(task)
              continue
            }
            var context = context
            context.output = TaskOutput(
              task: task, observer: pool.relay(name: name), clock: settings.clock, start: start,
              mask: settings.secrets)
            let handle = Task { [context] in
              await attempt(operation, context: context, retries: 0, emit: events)
            }
            let service = pool.keep(name, handle: handle)
            kept[task] = service
            group.addTask { await service.next(task) }
            startGates(of: task, context: context, state: &state, group: &group, emit: emit)
            if state.servicesUp.contains(task) { service.markReady() }
          } else if selection.graph[task].isService {
            let handle = Task { await attempt(operation, context: context, retries: 0, emit: events) }
            services[task] = handle
            group.addTask {
              await withTaskCancellationHandler {
                await handle.value
              } onCancel: {
                handle.cancel()
              }
            }
            startGates(of: task, context: context, state: &state, group: &group, emit: emit)
          } else if selection.graph[task].always {
            // Outside the group's cancellation: a cleanup runs after the run was stopped.
            group.addTask { [cleanups] in
              await cleanups.run(task) {
                await attempt(operation, context: context, retries: retries, emit: events)
              }
            }
          } else {
            group.addTask { await attempt(operation, context: context, retries: retries, emit: events) }
          }
        }
        if let slots = settings.jobserver?.slots {
          if state.waitsForSlot, !waitingForSlot {
            waitingForSlot = true
            // Not cancelled with the group: a cleanup may still wait for a slot after a stop,
            // and every task's end wakes it.
            group.addTask {
              await Task { await slots.waitForSlot() }.value
              return .slot
            }
          }
          // Slots go to the scheduler first: none is lent in a pass in which a task waited.
          if !state.waitsForSlot { slots.lend() }
          state.waitsForSlot = false
        }
        // No caller can reach a call any more: what only a call needed is skipped (and lets
        // go of the services it held).
        if state.onlyServicesRun { state.skipUncalled() }
        stopServices(&state, handles: services, kept: &kept)
        if state.running == 0, state.gating == 0, state.servicesUp.isEmpty {
          if state.ready.first != nil || state.readyRemote.first != nil { continue }
          if let report = state.deadlockReport() { state.declareDeadlock(report) }
          // A service that ended before it was ready may leave its gate check behind.
          group.cancelAll()
          break
        }
        guard let completion = await group.next() else { break }
        // A signal first: a service it ended was stopped, not lost.
        if Task.isCancelled, !state.stopping { state.stop() }
        switch completion {
        case .gate(let task, let failure):
          state.gateFinished(task, failure: failure)
        case .finished(let task, let result, let tail, let attempts):
          services[task] = nil
          state.finished(task, result: result, tail: tail, attempts: attempts)
        case .serviceGate(let task, let failure?):
          state.serviceGateFailed(task, failure)
        case .serviceGate(let task, nil):
          kept[task]?.markReady()
          state.serviceReady(task)
        case .parked(let task):
          kept[task] = nil
          state.serviceParked(task)
        case .slot:
          waitingForSlot = false
        }
        stopServices(&state, handles: services, kept: &kept)
        if state.stopping, state.running > 0 || state.gating > 0 { group.cancelAll() }
      }
    }
    var summary = state.summary()
    if settings.keepsUntilExit { KeptUntilExit.keep(unchecked: state) }
    summary.duration = clock.now - start
    return summary
  }

  /// A service's readiness gates, checked after it started; ready at once without any.
  private func startGates(
    of task: Int, context: OperationContext, state: inout RunState, group: inout TaskGroup<Completion>,
    emit: @escaping @Sendable (Int?, RunEvent.Kind) -> Void
  ) {
    let gates = selection.graph[task].waitFor
    guard !gates.isEmpty else { return state.serviceReady(task) }
    for gate in gates { emit(task, .waiting(gate: gate.description)) }
    let directory = workingDirectory(of: task)
    let environment = context.environment()
    group.addTask(executorPreference: globalConcurrentExecutor) {
      .serviceGate(
        task,
        failure: await GateWaiter(
          gates: gates, directory: directory, environment: environment, clock: settings.clock,
          processes: factory.processes
        ).wait())
    }
  }

  /// Stops the services the run asked to stop; under `--watch`, parks those that are up
  /// (their gates did not fail) instead, kept for the next run.
  private func stopServices(
    _ state: inout RunState, handles: [Int: Task<Completion, Never>], kept: inout [Int: ServicePool.Kept]
  ) {
    for service in state.takeServicesToStop() {
      guard let held = kept[service] else {
        handles[service]?.cancel()
        continue
      }
      if state.parks(service) {
        held.park(service)
      } else {
        state.onServiceEvent(service, .serviceStopping)
        settings.services?.forget(held)
        held.handle.cancel()
      }
    }
  }

  /// 1 MiB pipes for tasks' stdout while a quarter of the user's pipe allowance holds them all
  /// at once (`Kernel.setPipeSize`); the kernel's default otherwise.
  static func pipeSize(concurrency: Int) -> Int32 {
    let pages = (try? FileReader.read("/proc/sys/fs/pipe-user-pages-soft")).flatMap {
      Int(String(decoding: $0.prefix { $0 != 0x0A }, as: UTF8.self))
    }
    let allowance = pages.map { $0 == 0 ? Int.max : $0 * 4096 / 4 } ?? 0
    let size = 1 << 20
    let (total, overflow) = concurrency.multipliedReportingOverflow(by: size)
    return !overflow && total <= allowance ? Int32(size) : 0
  }

  package func workingDirectory(of task: Int) -> String {
    let base = selection.graph.file.directory
    guard let directory = selection.graph[task].directory else { return base }
    return FilePath.resolve(directory, in: base)
  }

  func makeContext(_ task: Int, state: RunState, start: ContinuousClock.Instant) -> OperationContext {
    let graph = selection.graph
    var inputs: [String: any OperationResult] = [:]
    for dependency in graph.dependencies[task] {
      if let result = state.results[dependency] { inputs[graph[dependency].name] = result }
    }
    var context = OperationContext(
      task: graph[task], inputs: inputs, baseEnvironment: baseEnvironment,
      workingDirectory: workingDirectory(of: task),
      output: TaskOutput(task: task, observer: observer, clock: settings.clock, start: start, mask: settings.secrets),
      grace: settings.grace, scratchDirectory: scratchDirectory, attempt: 1,
      imageInput: graph.imageInput(of: task).map { graph[$0].name }, remoteSlot: state.remoteSlot[task])
    if context.remoteSlot || graph[task].sandboxStrict { context.dependencyOutputs = dependencyOutputs(of: task) }
    if graph[task].sandboxStrict { context.projectDirectory = graph.file.directory }
    context.trace = settings.trace
    context.jobserver = settings.jobserver
    return context
  }

  /// The declared outputs of `task`'s dependencies (through groups), for a remote worker.
  func dependencyOutputs(of task: Int) -> [OperationContext.DependencyOutputs] {
    let graph = selection.graph
    var found: [OperationContext.DependencyOutputs] = []
    var work = Array(graph.dependencies[task])
    var seen = Set<Int>()
    while let next = work.popLast() {
      guard seen.insert(next).inserted else { continue }
      if case .group = graph[next].action {
        work.append(contentsOf: graph.dependencies[next])
        continue
      }
      let patterns = Fingerprint.outputPatterns(of: graph[next])
      guard !patterns.isEmpty else { continue }
      found.append(
        OperationContext.DependencyOutputs(
          name: graph[next].name, directory: graph[next].directory ?? ".",
          workingDirectory: workingDirectory(of: next), patterns: patterns))
    }
    return found
  }

  /// Per task, whether it takes a remote slot: with a remote executor, the cacheable tasks a
  /// worker can run (`TaskDefinition.remoteExecutionRefusal`); nil without one.
  func remoteSlots() -> [Bool]? {
    let caching = settings.caching
    guard factory.remote.execution != nil, caching.enabled, caching.useCache, factory.store != nil else { return nil }
    let graph = selection.graph
    return graph.tasks.indices.map { graph[$0].isCacheable && graph.remoteExecutionRefusal(of: $0) == nil }
  }

  /// Runs one task with its timeout and retries (exponential backoff: 0.5 s, 1 s, 2 s, … up to 30 s).
  func attempt(
    _ operation: any TaskOperation, context: OperationContext, retries: Int, emit: @Sendable (RunEvent.Kind) -> Void
  ) async -> Completion {
    var context = context
    let task = context.task.index
    while true {
      let result = await runOnce(operation, context: context)
      guard case .failure(let failure) = result, failure.isRetryable, context.attempt <= retries, !Task.isCancelled
      else {
        return .finished(task, result, tail: context.output.tail, attempts: context.attempt)
      }
      let delay = Duration.milliseconds(min(30_000, 500 << min(context.attempt - 1, 16)))
      emit(.retrying(attempt: context.attempt + 1, after: delay, reason: failure.description))
      if (try? await settings.clock.sleep(for: delay)) == nil {
        return .finished(task, .failure(.cancelled), tail: context.output.tail, attempts: context.attempt)
      }
      context.attempt += 1
      emit(.state(.executing, attempt: context.attempt, reason: nil))
    }
  }

  /// One attempt, raced against the task's timeout.
  func runOnce(_ operation: any TaskOperation, context: OperationContext) async -> Result<
    any OperationResult, TaskFailure
  > {
    let run = { @Sendable () async -> Result<any OperationResult, TaskFailure> in
      do {
        return .success(try await operation.run(context))
      } catch let failure as TaskFailure {
        return .failure(failure)
      } catch {
        return .failure(.message("\(error)"))
      }
    }
    guard let timeout = context.task.timeout else { return await run() }
    let clock = settings.clock
    enum Race: Sendable {
      case done(Result<any OperationResult, TaskFailure>)
      case timerFired
      case timerCancelled
    }
    return await withTaskGroup(of: Race.self) { race in
      race.addTask { .done(await run()) }
      race.addTask {
        do {
          try await clock.sleep(for: timeout)
          return .timerFired
        } catch {
          return .timerCancelled
        }
      }
      var timedOut = false
      while let outcome = await race.next() {
        switch outcome {
        case .done(let result):
          race.cancelAll()
          if timedOut, case .failure = result { return .failure(.timedOut(timeout)) }
          return result
        case .timerFired:
          timedOut = true
          race.cancelAll()
        case .timerCancelled:
          continue
        }
      }
      return .failure(.cancelled)
    }
  }
}
