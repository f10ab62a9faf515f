import RunnerBasics
import RunnerCache
import RunnerProcess
import RunnerRemoteAPI

/// How a run behaves, from the task file and the command line.
package struct RunSettings: Sendable {
  /// The most tasks executing at once.
  package var concurrency: Int
  /// Stop at the first failure (the default); false is `--keep-going`.
  package var failFast: Bool
  /// SIGTERM → SIGKILL grace for cancelled tasks.
  package var grace: Duration
  /// `--events FILE`.
  package var eventsPath: String?
  /// Up-to-date checks and the local cache (`--force`, `--no-cache`, `--no-wait`).
  package var caching: CacheSettings
  /// The remote cache and executor, each when named (used only with the local cache).
  package var remote = RemoteSessions()
  /// `--watch`: services are parked here when a run no longer needs them, and adopted from here.
  package var services: ServicePool?
  /// The run's secret values, masked in every task's output (`TaskGraph.secretMask`).
  package var secrets: SecretMask = .none
  /// The answers to the selected tasks' `prompt:`s.
  package var answers = PromptAnswers()
  /// Where timeouts, retries' backoff and readiness polls wait (a test moves its own).
  package var clock: any RunClock = SystemClock()
  /// Runner exits after this run: what it made (the scheduler's state, the results) is kept
  /// until then rather than freed (`KeptUntilExit`).
  package var keepsUntilExit = false
  /// `--check-inputs`: shell tasks run traced, what they did kept here.
  package var traces: TaskTraces?
  /// The OpenTelemetry trace the run is exported as: each task's process gets `TRACEPARENT`.
  package var trace: TraceContext?
  /// `-j` shared with the tasks' tools through a GNU make jobserver (`MAKEFLAGS`); nil: none.
  package var jobserver: RunJobserver?

  package init(
    concurrency: Int, failFast: Bool = true, grace: Duration = .seconds(5), eventsPath: String? = nil,
    caching: CacheSettings = .disabled
  ) {
    self.concurrency = max(1, concurrency)
    self.failFast = failFast
    self.grace = grace
    self.eventsPath = eventsPath
    self.caching = caching
  }
}
