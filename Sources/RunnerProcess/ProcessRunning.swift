/// What operations start their processes with: the reactor (`ProcessReactor.shared`), or a
/// stand-in under test, as ninja's tests build on a `FakeCommandRunner`. Commands, `if:` and
/// `preconditions` checks and `wait_for` commands all start theirs here.
package protocol ProcessRunning: Sendable {
  /// Runs `spec` to its end, its output lines to `sink`; a cancelled caller's process group
  /// gets SIGTERM, then SIGKILL after `grace`.
  ///
  /// - Returns: how the direct child ended.
  /// - Throws: `SpawnError` when the process could not be started.
  func run(_ spec: ProcessSpec, sink: some OutputLineSink, grace: Duration) async throws(SpawnError) -> ProcessOutcome
  /// How many process groups outlived their leader so far (processes left behind, which
  /// `reapLeftovers` ends, or still dying after a cancelled task's SIGTERM): what a task hands
  /// on only when nothing of its own may still hold it (its jobserver pool) compares this
  /// before and after.
  var leftoversSeen: Int { get }
}

extension ProcessReactor: ProcessRunning {
  package var leftoversSeen: Int { groups.leftoversSeen }
}
