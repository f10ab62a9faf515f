import Imaging
import RunnerCache
import RunnerEvents
import RunnerModel
import RunnerProcess
import RunnerRemoteAPI
import Synchronization

/// Makes the operation that runs a task, by the kind of its action.
package struct OperationFactory: Sendable {
  /// Where the scheduler's loop runs (the reactor's thread).
  let reactor: ProcessReactor
  /// What operations start their processes with: the reactor, unless a test stands in.
  let processes: any ProcessRunning
  /// Incremental state and cache; nil runs every task as written.
  let store: IncrementalStore?
  /// The remote cache and executor, reached through the store's tasks.
  let remote: RemoteSessions
  /// Fetches image `load:` URLs.
  let fetcher: any URLFetching
  /// The answers to the run's prompts.
  let answers: PromptAnswers
  /// Where shell tasks' traces go: every task's when the run traces them all
  /// (`--check-inputs`), else those of tasks with `sources: auto`.
  let traces: TaskTraces
  let tracesAll: Bool
  /// What the parts of tasks decided as one did so far in the run.
  let parts = WholeTaskRuns()
  /// The reasons found for the run's tasks.
  let decisions = TaskDecisions()

  package init(
    reactor: ProcessReactor = .shared, processes: (any ProcessRunning)? = nil, store: IncrementalStore? = nil,
    remote: RemoteSessions = RemoteSessions(), fetcher: (any URLFetching)? = nil,
    answers: PromptAnswers = PromptAnswers(), traces: TaskTraces? = nil
  ) {
    self.traces = traces ?? TaskTraces()
    tracesAll = traces != nil
    self.remote = remote
    self.reactor = reactor
    let processes = processes ?? reactor
    // Any process the run starts — a task's command, an `if:` or precondition check, a gate's
    // command, a service — may write files: the store's read-ahead stops before the first.
    self.processes = store.map { ChangeNotingProcesses(inner: processes, store: $0) } ?? processes
    self.store = store
    self.fetcher = fetcher ?? NoNetwork()
    self.answers = answers
  }

  package func operation(for task: TaskDefinition) -> any TaskOperation {
    var operation = plainOperation(for: task)
    if let refusal = answers.refusal(of: task) { operation = RefusedOperation(reason: refusal) }
    if !task.preconditions.isEmpty {
      operation = PreconditionOperation(
        preconditions: task.preconditions, inner: operation, shell: task.shell ?? ShellSetting.standard,
        processes: processes)
    }
    guard let condition = task.condition else { return operation }
    return ConditionalOperation(
      condition: condition, inner: operation, shell: task.shell ?? ShellSetting.standard, processes: processes)
  }

  private func plainOperation(for task: TaskDefinition) -> any TaskOperation {
    let operation: any TaskOperation
    switch task.action {
    case .group: return GroupOperation()
    case .shell(let commands):
      operation = ShellOperation(
        commands: commands, shell: task.shell, arguments: task.arguments, processes: processes,
        traces: tracesAll || task.sourcesAuto ? traces : nil)
    case .image(let steps): operation = ImageOperation(steps: steps, fetcher: fetcher)
    }
    // A service is never up to date nor restored: it is started, and stopped.
    guard let store, !task.isService else { return operation }
    return CachingOperation(
      inner: operation, store: store, remote: remote, cacheable: task.isCacheable, parts: parts, decisions: decisions,
      traces: traces)
  }
}

/// A task with only dependencies: succeeds at once, handing on what its dependencies did.
struct GroupOperation: TaskOperation {
  func run(_ context: OperationContext) async throws(TaskFailure) -> any OperationResult { result(context) }

  func conclude(_ context: OperationContext) -> Conclusion { .finished(result(context)) }

  func result(_ context: OperationContext) -> any OperationResult {
    GroupResult(inputs: context.inputs)
  }
}

/// What a group hands on: no values, and its dependencies' contributions as its digest,
/// worked out when a dependent first asks (a group that ends a run, `all` of 10 000 tasks, is
/// asked by none).
final class GroupResult: FingerprintProviding {
  private let inputs: [String: any OperationResult]
  private let digest = Mutex<String?>(nil)

  init(inputs: [String: any OperationResult]) {
    self.inputs = inputs
  }

  var fingerprint: String? { nil }

  var outputDigest: String {
    digest.withLock { digest in
      if let digest { return digest }
      let made = Fingerprint.groupDigest(inputs.map { Fingerprint.contribution(of: $0.value, name: $0.key) })
      digest = made
      return made
    }
  }
}

/// Processes that tell the store, before each starts, that files may change from now on
/// (`IncrementalStore.noteChange`).
struct ChangeNotingProcesses: ProcessRunning {
  let inner: any ProcessRunning
  let store: IncrementalStore

  func run(_ spec: ProcessSpec, sink: some OutputLineSink, grace: Duration) async throws(SpawnError)
    -> ProcessOutcome
  {
    store.noteChange()
    return try await inner.run(spec, sink: sink, grace: grace)
  }

  var leftoversSeen: Int { inner.leftoversSeen }
}
