import RunnerEvents
import RunnerModel
import RunnerProcess

/// What happened in a run, task by task and attempt by attempt: the input of the reports
/// written after it (JUnit, trace, timeline, step summary).
///
/// Built by `RunRecorder` from the run's events; a value, so tests can build one by hand.
package struct RunRecord: Sendable {
  /// One execution of a task, on one lane (a concurrency slot, assigned greedily: the
  /// lowest lane free when the attempt starts).
  package struct Attempt: Sendable, Equatable {
    package var task: Int
    /// From 1.
    package var number: Int
    package var lane: Int
    package var start: Duration
    /// nil while it runs.
    package var end: Duration?
    /// The attempt's outcome: a final state, or `failed` for an attempt that was retried.
    package var outcome: TaskState?
    package var reason: String?
    /// How its last command ended, for a shell task whose command ran.
    package var exit: ProcessOutcome?
    /// For a service: when its readiness gates passed, and when the run asked it to stop.
    package var ready: Duration?
    package var stopping: Duration?
  }

  /// How a task ended.
  package struct Outcome: Sendable, Equatable {
    package var state: TaskState
    package var reason: String?
    /// How many attempts ran (0: never started).
    package var attempts: Int
    /// When its first attempt started; nil if it never did.
    package var start: Duration?
    package var end: Duration
    /// From the first start to the end, retries and their waits included.
    package var duration: Duration { start.map { end - $0 } ?? .zero }
  }

  package var concurrency = 1
  package var duration: Duration = .zero
  package var attempts: [Attempt] = []
  /// The final state of each task that reached one, by graph index.
  package var outcomes: [Int: Outcome] = [:]
  /// Each wait of a task for one of its readiness gates, from when it began.
  package var waits: [(task: Int, gate: String, start: Duration)] = []
  /// `laneBusy[i]`: lane i holds a running attempt.
  var laneBusy: [Bool] = []
  /// The attempt each running task holds (index into `attempts`).
  var running: [Int: Int] = [:]
  /// When each task's first attempt started (a search of `attempts` per task would make a
  /// run's record quadratic: 22 s of 200 000 tasks).
  var firstStart: [Int: Duration] = [:]

  package init() {}

  /// How many lanes the run used.
  package var laneCount: Int { laneBusy.count }

  /// Applies one event (in the order the run emitted them).
  package mutating func apply(_ event: RunEvent) {
    switch event.kind {
    case .runStarted(_, let concurrency):
      self.concurrency = concurrency
    case .state(.executing, let attempt, _):
      guard let task = event.task else { return }
      close(task, at: event.time, outcome: .failed, reason: nil)
      let lane = laneBusy.firstIndex(of: false) ?? laneBusy.count
      if lane == laneBusy.count { laneBusy.append(true) } else { laneBusy[lane] = true }
      running[task] = attempts.count
      if firstStart[task] == nil { firstStart[task] = event.time }
      attempts.append(Attempt(task: task, number: attempt, lane: lane, start: event.time))
    case .state(let state, let attempt, let reason) where state.isFinal:
      guard let task = event.task else { return }
      close(task, at: event.time, outcome: state, reason: reason)
      let start = firstStart[task]
      outcomes[task] = Outcome(
        state: state, reason: reason, attempts: start == nil ? 0 : attempt, start: start, end: event.time)
    case .retrying(_, _, let reason):
      guard let task = event.task else { return }
      close(task, at: event.time, outcome: .failed, reason: reason)
    case .exited(let outcome):
      guard let task = event.task, let index = running[task] else { return }
      attempts[index].exit = outcome
    case .serviceReady:
      guard let task = event.task, let index = running[task] else { return }
      attempts[index].ready = event.time
    case .serviceStopping:
      guard let task = event.task, let index = running[task] else { return }
      attempts[index].stopping = event.time
    case .runFinished(let summary):
      duration = summary.duration
    case .waiting(let gate):
      guard let task = event.task else { return }
      waits.append((task, gate, event.time))
    case .state, .decided:
      break
    }
  }

  mutating func close(_ task: Int, at time: Duration, outcome: TaskState, reason: String?) {
    guard let index = running.removeValue(forKey: task) else { return }
    attempts[index].end = time
    attempts[index].outcome = outcome
    attempts[index].reason = reason
    laneBusy[attempts[index].lane] = false
  }

  /// The chain of tasks that set the run's length: the task that finished last, then what
  /// held up its start, and so on back to a task that started at once.
  ///
  /// What held a task up is its dependency that finished last — unless the task started
  /// noticeably later than that, in which case it waited for a slot or a resource, and the
  /// task that ended just before it started is the one it waited for.
  package func criticalPath(_ graph: TaskGraph) -> [Int] {
    let started = outcomes.filter { $0.value.start != nil }
    let latest = { (a: Int, b: Int) in (started[a]!.end, -a) < (started[b]!.end, -b) }
    guard var node = started.keys.max(by: latest) else { return [] }
    let slack = max(Duration.milliseconds(10), duration / 100)
    var path = [node]
    var seen: Set<Int> = [node]
    // The tasks by end, for the one that ended just before a start: a binary search, not a
    // scan of every task per step (a wide run's path goes through every slot it waited for).
    let byEnd = started.keys.sorted { latest($0, $1) }
    while let start = started[node]?.start {
      // A real dependency is always followed, however early the task started (a chain that
      // started at time zero lost its first links).
      var previous = graph.dependencies[node].filter { started[$0] != nil }.max(by: latest)
      if start > slack, previous.map({ start - started[$0]!.end > slack }) ?? true {
        var low = 0
        var high = byEnd.count
        while low < high {
          let middle = (low + high) / 2
          if started[byEnd[middle]]!.end <= start { low = middle + 1 } else { high = middle }
        }
        var freed: Int?
        var candidate = low - 1
        while candidate >= 0, start - started[byEnd[candidate]]!.end <= slack {
          if !seen.contains(byEnd[candidate]) {
            freed = byEnd[candidate]
            break
          }
          candidate -= 1
        }
        previous = freed ?? previous
      }
      guard let next = previous, seen.insert(next).inserted else { break }
      path.append(next)
      node = next
    }
    return path.reversed()
  }
}
