import RunnerEvents
import RunnerModel

/// Task calls in the run: what only a call reaches is needed once a caller reaches the call,
/// and a called task starts after the caller's part before the call (`TaskCalls`).
extension RunState {
  static func edge(_ from: Int, _ to: Int) -> UInt64 { UInt64(UInt32(from)) << 32 | UInt64(UInt32(to)) }

  /// Every member, or with task calls, what the targets need through `deps` (not through calls).
  static func wantedAtStart(_ selection: GraphSelection) -> [Bool] {
    let graph = selection.graph
    guard !graph.calls.isEmpty else { return selection.isMember }
    var wanted = [Bool](repeating: false, count: graph.count)
    var work = selection.targets
    while let next = work.popLast() {
      guard !wanted[next] else { continue }
      wanted[next] = true
      let called = graph.callDependencies(of: next)
      work.append(contentsOf: graph.dependencies[next].lazy.filter { !called.contains($0) })
    }
    return wanted
  }

  /// A caller reached its call of `task`: it, and what it needs, may start.
  mutating func want(_ task: Int) {
    var work = [task]
    while let next = work.popLast() {
      guard selection.isMember[next], !wanted[next] else { continue }
      wanted[next] = true
      let called = graph.callDependencies(of: next)
      work.append(contentsOf: graph.dependencies[next].lazy.filter { !called.contains($0) })
      // Tasks that start after this one and have not started yet now wait for it, unless it ended.
      if !states[next].isFinal {
        for later in graph.runsBefore(next) where selection.isMember[later] && states[later] == .pending {
          if orderingsCounted.insert(Self.edge(next, later)).inserted { orderWait[later, default: 0] += 1 }
        }
      }
      readyIfFree(next)
    }
  }

  /// Nothing runs but services that are up, nothing is ready or being checked: no caller can
  /// reach a call any more (a service still starting may release one).
  var onlyServicesRun: Bool {
    // A service that is up has given its slot back (`serviceReady`): `running` counts the rest.
    running == 0 && servicesUp == servicesRunning && gating == 0 && gated.isEmpty && ready.first == nil
      && readyRemote.first == nil && interactiveWaiting == nil && resourceBlocked.isEmpty
  }

  /// The first part of a task with calls decided for the whole task — its `if:` was false, or
  /// it was up to date or restored as one (`WholeTask`): the later parts end the same way, with
  /// its result, and make no call.
  mutating func endLaterParts(of task: Int, _ state: TaskState, reason: String?, result: (any OperationResult)?) {
    let parts = graph.laterParts(of: task)
    for part in parts where states[part] == .pending {
      if let result { results[part] = result }
      set(part, state, reason: reason)
    }
    for part in parts { releaseDependents(of: part) }
  }

  /// Once nothing runs: tasks only a call would have needed, and no caller reached, are skipped.
  mutating func skipUncalled() {
    guard !graph.calls.isEmpty, !stopping else { return }
    let skipped = selection.members.filter { !wanted[$0] && states[$0] == .pending }
    // A caller up to date or restored as a whole (`WholeTask`) made no call: its callees, and
    // what only they needed, say so.
    var decided: [Int: String] = [:]
    for task in skipped {
      for part in graph.runsAfter(task) {
        guard let cached = results[part] as? CachedResult, cached.decidesParts, let whole = graph[part].wholeTask
        else { continue }
        decided[task] = "'\(whole.name)' is \((cached.concluded ?? .upToDate).words)"
        break
      }
    }
    var work = Array(decided.keys)
    while let next = work.popLast() {
      for dependency in graph.dependencies[next] where !wanted[dependency] && decided[dependency] == nil {
        decided[dependency] = decided[next]
        work.append(dependency)
      }
    }
    for task in skipped {
      set(task, .skipped, reason: "not called: " + (decided[task] ?? "no task that calls it reached the call"))
    }
  }
}
