import RunnerCache
import Synchronization

/// A REAPI v2 Execution service as the executor sees it: a task's Action runs there, its
/// outputs come back as a local cache entry. `RunnerRemote` implements it.
package protocol RemoteExecutor: Sendable {
  /// Its address, for warnings and the plan.
  var name: String { get }

  /// Runs `job` on the server: the blobs it lacks uploaded first (the Command, the Action, the
  /// input tree and the source files), then Execute, then the outputs downloaded into `scratch`
  /// (`contents[i]` holds `entry.files[i]`), each checked against its digest.
  func execute(_ job: RemoteJob, scratch: String) async throws(RemoteCacheError) -> RemoteRun

  /// Ends its connections.
  func close() async
}

/// What a remote worker runs for one task.
package struct RemoteJob: Sendable {
  /// The Action the worker runs (`ActionKey.runnable`).
  package var runnable: ActionKey.Runnable
  /// Where each source file of the input root lies here, by its digest.
  package var inputs: [ActionMessages.Digest: String]
  /// Skip the server's own cache (`--force`).
  package var skipCacheLookup: Bool

  package init(runnable: ActionKey.Runnable, inputs: [ActionMessages.Digest: String], skipCacheLookup: Bool) {
    self.runnable = runnable
    self.inputs = inputs
    self.skipCacheLookup = skipCacheLookup
  }
}

/// How a remote run ended.
package struct RemoteRun: Sendable {
  /// The command's exit code (0: the entry is the task's result).
  package var exitCode: Int32
  /// Its output files, stdout and stderr (as `log`).
  package var entry: CacheEntry
  package var contents: [String]
  /// What the task wrote to `$RUNNER_OUTPUT`, if it wrote anything.
  package var values: [UInt8]?
  /// The server answered from its own action cache.
  package var cached: Bool
  /// What `runner-trace` saw, for a traced Action (`ActionKey.traceOutput`).
  package var trace: [UInt8]?

  package init(
    exitCode: Int32, entry: CacheEntry, contents: [String], values: [UInt8]?, cached: Bool, trace: [UInt8]? = nil
  ) {
    self.exitCode = exitCode
    self.entry = entry
    self.contents = contents
    self.values = values
    self.cached = cached
    self.trace = trace
  }
}

/// The remote execution of one run: at most `jobs` tasks at once on the server, beside the
/// local `-j`. A fault (the server unreachable, an error, a timeout) costs one warning and
/// turns remote execution off for the rest of the run: the task runs here instead, and so
/// does every later one. A task's own failure (its command's exit code) is no fault.
package final class RemoteExecutionSession: Sendable {
  package let executor: any RemoteExecutor
  /// The most tasks executing remotely at once (`--remote-jobs`).
  package let jobs: Int
  private let faults = RemoteFaults()
  private let state = Mutex(State())

  struct State {
    var executed = 0
    var cached = 0
  }

  package init(_ executor: any RemoteExecutor, jobs: Int) {
    self.executor = executor
    self.jobs = max(1, jobs)
  }

  package var isOff: Bool { faults.isOff }

  /// Tasks run on the server, and those it answered from its cache.
  package var counts: (executed: Int, cached: Int) { state.withLock { ($0.executed, $0.cached) } }

  /// Runs `job` remotely; nil on a fault (said once), when the task must run here.
  package func execute(_ job: RemoteJob, task: String, scratch: String, warn: (String) -> Void) async -> RemoteRun? {
    guard !isOff else { return nil }
    do {
      let run = try await executor.execute(job, scratch: scratch)
      state.withLock { if run.cached { $0.cached += 1 } else { $0.executed += 1 } }
      return run
    } catch {
      faults.report(error, warn: warn) { turnsOff in
        "remote execution \(executor.name): running '\(task)': \(error); "
          + (turnsOff ? "running tasks here from now on" : "running it here")
      }
      return nil
    }
  }
}
