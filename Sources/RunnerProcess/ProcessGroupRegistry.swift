import Synchronization

/// Process groups a reactor must still be able to kill after their direct child is gone.
final class ProcessGroupRegistry: Sendable {
  private let state = Mutex(State())

  private struct State {
    /// Between SIGTERM and SIGKILL (cancelled runs, `reapLeftovers`).
    var graced: Set<Int32> = []
    /// Groups whose leader exited while other members were still alive.
    var leftovers: Set<Int32> = []
    /// Groups whose leader is running.
    var live: Set<Int32> = []
    /// How many groups outlived their leader so far (cancelled ones too).
    var leftoversSeen = 0
  }

  func started(_ group: Int32) {
    state.withLock { _ = $0.live.insert(group) }
  }

  func ended(_ group: Int32) {
    state.withLock { _ = $0.live.remove(group) }
  }

  /// Every group a signal for the whole run must reach (Ctrl-Z, then `fg`).
  func allGroups() -> Set<Int32> {
    state.withLock { $0.live.union($0.graced).union($0.leftovers) }
  }

  func startGrace(_ groups: some Sequence<Int32>) {
    state.withLock { $0.graced.formUnion(groups) }
  }

  func endGrace(_ groups: some Sequence<Int32>) {
    state.withLock { $0.graced.subtract(groups) }
  }

  func gracedGroups() -> [Int32] {
    state.withLock { Array($0.graced) }
  }

  func addLeftover(_ group: Int32) {
    state.withLock { _ = $0.leftovers.insert(group) }
  }

  /// A group outlived its leader: left behind, or still dying after a cancelled task's SIGTERM.
  func noteOutlived() {
    state.withLock { $0.leftoversSeen += 1 }
  }

  /// How many groups outlived their leader since the reactor started.
  var leftoversSeen: Int { state.withLock { $0.leftoversSeen } }

  func takeLeftovers() -> [Int32] {
    state.withLock { state in
      defer { state.leftovers = [] }
      return Array(state.leftovers)
    }
  }
}
