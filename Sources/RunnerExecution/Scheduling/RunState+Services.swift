import RunnerBasics
import RunnerEvents
import RunnerModel

/// Services (`service: true`): ready when their gates pass after they start, asked to stop
/// once nothing that still has to run needs them, parked instead under `--watch`.
extension RunState {
  /// A service's gates passed: it stops holding a slot, and its dependents may start.
  mutating func serviceReady(_ task: Int) {
    guard servicesRunning.contains(task), !servicesUp.contains(task) else { return }
    running -= 1
    releaseSlot(of: task)
    servicesUp.insert(task)
    onServiceEvent(task, .serviceReady)
    if parkWhenReady.remove(task) != nil { toStop.append(task) }
    releaseResources(of: task)
    releaseDependents(of: task)
  }

  mutating func askToStop(_ service: Int) {
    guard stopAsked.insert(service).inserted else { return }
    // Under --watch one still starting is kept once it is ready (`serviceReady`), unless the
    // run stops first (then its gate check is cancelled, and it is stopped).
    if parksServices, !stopping, !servicesUp.contains(service) {
      parkWhenReady.insert(service)
      return
    }
    toStop.append(service)
    // Under --watch the scheduler says it when it stops one rather than parks it.
    if !parksServices { onServiceEvent(service, .serviceStopping) }
  }

  /// Whether a service asked to stop is parked rather than stopped: under `--watch`, when it
  /// is up and its gates did not fail.
  func parks(_ service: Int) -> Bool {
    parksServices && servicesUp.contains(service) && gateFailures[service] == nil
  }

  /// A service the run no longer needs was parked, kept up for the next run.
  mutating func serviceParked(_ task: Int) {
    serviceEnded(task, result: .failure(.cancelled), tail: [], parked: true)
  }

  /// Services the scheduler must stop now (cancel their attempts).
  mutating func takeServicesToStop() -> [Int] {
    defer { toStop.removeAll() }
    return toStop
  }

  /// A service's gate did not hold: it is stopped and fails.
  mutating func serviceGateFailed(_ task: Int, _ failure: String) {
    guard servicesRunning.contains(task), gateFailures[task] == nil else { return }
    gateFailures[task] = failure
    stopAsked.insert(task)
    toStop.append(task)
  }

  /// A service's process ended: success when the run asked it to stop (or nothing needs it
  /// any more), a failure otherwise.
  mutating func serviceEnded(
    _ task: Int, result: Result<any OperationResult, TaskFailure>, tail: [String], parked: Bool = false
  ) {
    let wasUp = servicesUp.remove(task) != nil
    servicesRunning.remove(task)
    parkWhenReady.remove(task)
    if !wasUp {
      running -= 1
      releaseSlot(of: task)
      releaseResources(of: task)
    }
    let elapsed = started[task].map { formatDuration(clock.now - $0) } ?? ""
    if parked {
      set(task, .succeeded, reason: "kept up for the next run (up \(elapsed))")
    } else if let gate = gateFailures[task] {
      fail(task, .gate(gate), tail: tail, elapsed: elapsed)
    } else if stopAsked.contains(task) || (wasUp && holders[task] == 0) {
      set(task, .succeeded, reason: "stopped (up \(elapsed))")
    } else if stopping {
      set(task, .cancelled, reason: "cancelled after \(elapsed)")
    } else {
      let why: TaskFailure
      switch result {
      case .failure(let failure) where !wasUp: why = failure
      case .failure(let failure): why = .message("the service ended while tasks depend on it: \(failure)")
      case .success:
        why = .message(wasUp ? "the service ended while tasks depend on it" : "the service ended before it was ready")
      }
      fail(task, why, tail: tail, elapsed: elapsed)
    }
  }
}
