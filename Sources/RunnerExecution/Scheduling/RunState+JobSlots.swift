import RunnerProcess

/// The job slots a run shares with its tasks' tools (`JobSlots`, the jobserver): one for each
/// task that runs here, taken when it starts and given back when it ends or a service is up.
extension RunState {
  /// A job slot for a task about to start here (`JobSlots`); a task in a remote slot, and a
  /// group, which runs nothing, need none. False while tools hold every slot: `waitsForSlot`
  /// tells the scheduler to wait for one, and no local task starts for the rest of the pass.
  mutating func takeSlot(for task: Int) -> Bool {
    guard let jobSlots, !remoteSlot[task] else { return true }
    if case .group = graph[task].action { return true }
    guard jobSlots.take() else {
      waitsForSlot = true
      return false
    }
    slotsHeld.insert(task)
    return true
  }

  /// Gives back the job slot `task` held, if it held one.
  mutating func releaseSlot(of task: Int) {
    if slotsHeld.remove(task) != nil { jobSlots?.give() }
  }
}
