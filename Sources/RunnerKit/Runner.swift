import Glibc
import RunnerBasics
import RunnerCache
import RunnerExecution
import RunnerModel
import RunnerProcess
import RunnerRemote
import RunnerRemoteAPI
import RunnerRendering
import RunnerReporting
import Synchronization

/// The façade: one entry point per command of the command line; none exits. A command that
/// runs tasks (`run`, `watch`) prints as the run goes and returns its exit code; every other
/// returns an `Answer` (output, problems, exit code) that the caller prints.
///
/// Exit codes: 0 success; 1 a task failed; 2 invalid task file or usage; 130/143 interrupted by
/// SIGINT/SIGTERM.
public final class Runner: Sendable {
  public let options: RunOptions

  public init(_ options: RunOptions) {
    self.options = options
  }

  /// Call first thing: notes which signals were ignored when runner started (`nohup runner`
  /// keeps SIGHUP ignored) and lets SIGQUIT end runner outside a run; and whether the
  /// jobserver descriptors `MAKEFLAGS` names are open (before runner opens its own).
  public static func noteSignalsAtStart() {
    SignalWatcher.recordStart()
    JobClient.noteInheritedDescriptors()
  }

  /// The version: semantic version, and the commit when built from a git checkout.
  public static var version: String { RunnerVersion.text }

  /// `runner [TARGET...]`: runs the selected tasks.
  public func run() async -> Int32 {
    var answer = Answer()
    defer { answer.write() }
    if let fallback = options.reports.uiFallback { DiagnosticPrinter().print([Diagnostic(.warning, fallback)]) }
    guard var caching = cacheSettings(&answer) else { return ExitStatus.usage }
    if options.checkInputs, let unavailable = ProcessTrace.unavailability {
      // Said before anything runs.
      answer.report([Diagnostic(.error, "--check-inputs cannot trace tasks here: \(unavailable)")])
      return ExitStatus.usage
    }
    let bytes = try? FileReader.read(options.taskFile)
    let stateDirectory = CacheSettings.stateDirectory(forTaskFile: options.taskFile)
    if caching.enabled, !options.force, !options.checkInputs, options.affected == nil, let bytes,
      let invocation = NoOpRecord.invocationKey(taskFile: options.taskFile, arguments: options.arguments)
    {
      if let code = await NoOpRun.attempt(
        invocation: invocation, taskFile: bytes, base: TaskFileLoader.directory(of: options.taskFile),
        stateDirectory: stateDirectory, reports: options.reports, eventsPath: options.eventsPath,
        wait: !options.noWait, exitsAfterRun: options.exitsAfterRun)
      {
        return code
      }
      caching.noOpInvocation = invocation
      caching.noOpTaskFile = bytes
    }
    if caching.enabled {
      // Without --force, the read-ahead goes on to check the recorded files.
      IncrementalStore.readAhead(
        directory: stateDirectory, base: options.force ? nil : TaskFileLoader.directory(of: options.taskFile))
    }
    // A run that ends before its store is made leaves no read-ahead behind.
    defer { IncrementalStore.dropReadAhead(directory: stateDirectory) }
    guard let (graph, whole) = load(&answer, bytes: bytes) else { return ExitStatus.usage }
    let narrowed = await affected(whole, dryRun: false, &answer)
    guard let selection = narrowed.selection else { return narrowed.code }
    let loadRanCommands = graph.ranCommandsAtLoad
    if loadRanCommands {
      // A param's `sh:` default (or a `.env` command) ran while the read-ahead compared the records' files: what it
      // saw may not hold, so the store reads again.
      IncrementalStore.dropReadAhead(directory: stateDirectory)
    }
    if !graph.file.otherFiles.isEmpty || graph.hasCommandConditions || loadRanCommands {
      // The record pins the task file alone: a `.env` file, a condition command or a param's
      // `sh:` default could change what a run does behind its back.
      caching.noOpInvocation = nil
    }
    var remote = RemoteSessions()
    switch RemoteSetup.sessions(options.remote, file: graph.file, environment: ProcessEnvironment.current) {
    case .success(let sessions):
      // The remote layer goes through the local cache: without it, it is not used.
      if caching.useCache { remote = sessions }
    case .failure(let problem):
      answer.report([Diagnostic(.error, problem.text)])
      return ExitStatus.usage
    }
    // What loading said comes before the run's own lines.
    answer.write()
    answer = Answer()
    let traces = options.checkInputs ? TaskTraces() : nil
    let code = await session(
      selection, caching: caching, remote: remote, keepsUntilExit: options.exitsAfterRun, traces: traces
    ).run()
    await Self.closeRemote(remote)
    if options.exitsAfterRun { KeptUntilExit.keep(selection) }
    guard let traces, code == ExitStatus.success else { return code }
    return Self.checkInputs(selection, traces: traces)
  }

  func session(
    _ selection: GraphSelection, caching: CacheSettings, remote: RemoteSessions = RemoteSessions(),
    services: ServicePool? = nil, keepsUntilExit: Bool = false, traces: TaskTraces? = nil
  ) -> RunSession {
    let graph = selection.graph
    let jobs = JobserverSetup.make(
      explicit: options.jobs, fallback: graph.file.concurrency ?? Terminal.processorCount,
      environment: ProcessEnvironment.current)
    if let warning = jobs.warning { DiagnosticPrinter().print([Diagnostic(.warning, warning)]) }
    var settings = RunSettings(
      concurrency: jobs.concurrency, failFast: options.keepGoing ? false : graph.file.failFast, grace: options.grace,
      eventsPath: options.eventsPath, caching: caching)
    settings.jobserver = jobs.jobserver
    settings.services = services
    settings.keepsUntilExit = keepsUntilExit
    settings.remote = remote
    if let traces {
      settings.traces = traces
      // Traced tasks run here: a remote executor's processes cannot be watched.
      settings.remote.execution = nil
    }
    settings.secrets = Self.secrets(of: graph)
    settings.answers = Prompter.ask(selection, yes: options.assumeYes)
    settings.trace = TraceExport.context(for: options.reports)
    return RunSession(selection: selection, settings: settings, reports: options.reports)
  }

  /// The secret values of a run of `graph`, masked wherever runner prints them.
  static func secrets(of graph: TaskGraph) -> SecretMask {
    graph.secretMask(environment: RunSession.environment(of: graph))
  }

  /// `runner --watch [TARGET...]`: runs, then re-runs what each change to the sources touches
  /// (`WatchLoop`) until a signal; exits 128 + that signal.
  public func watch() async -> Int32 {
    var answer = Answer()
    if let fallback = options.reports.uiFallback { DiagnosticPrinter().print([Diagnostic(.warning, fallback)]) }
    let loaded = cacheSettings(&answer).flatMap { caching in load(&answer).map { (caching, $0.1) } }
    answer.write()
    guard let (caching, selection) = loaded else { return ExitStatus.usage }
    return await WatchLoop(runner: self, selection: selection, caching: caching).run()
  }

  /// The task file loaded and selected again (after it changed), or nil (said).
  func reload() -> GraphSelection? {
    var answer = Answer()
    defer { answer.write() }
    return load(&answer)?.1
  }

  /// An answer for a command that answers with text: written as it is made when the options say
  /// so (`streamsOutput`).
  func newAnswer() -> Answer { Answer(streamingTo: options.streamsOutput ? 1 : nil) }

  /// `runner -n`: the plan (what would run, what is up to date or cached); runs nothing.
  public func dryRun() async -> Answer {
    var answer = newAnswer()
    guard let caching = cacheSettings(&answer), let (graph, whole) = load(&answer) else { return answer.failing() }
    let narrowed = await affected(whole, dryRun: true, &answer)
    guard let selection = narrowed.selection else {
      answer.exitCode = narrowed.code
      return answer
    }
    let predictions = predictions(graph, selection, caching, &answer)
    let secrets = Self.secrets(of: graph)
    PlanRenderer(secrets: secrets).write(
      selection.namesMasked(by: secrets), predictions: predictions,
      placements: placements(selection, caching)
    ) { answer.say($0) }
    return answer
  }

  /// With `--affected`, the part of `selection` a change touches; the selection itself without.
  /// A dry run lists each chosen task and why. No selection and the exit code when nothing is
  /// touched (0) or git cannot tell (2); both said.
  private func affected(_ selection: GraphSelection, dryRun: Bool, _ answer: inout Answer) async -> (
    selection: GraphSelection?, code: Int32
  ) {
    guard let affected = options.affected else { return (selection, 0) }
    let graph = selection.graph
    let changed: AffectedTasks.Changes
    switch await AffectedTasks.changedFiles(in: graph.file.directory, ref: affected.ref) {
    case .success(let found): changed = found
    case .failure(let problem):
      answer.report([Diagnostic(.error, problem.text)])
      return (nil, ExitStatus.usage)
    }
    let taskFiles = Set(AffectedTasks.taskFiles(of: graph.file)).intersection(changed.files)
    let definitions = await AffectedDefinitions.find(
      files: taskFiles.sorted(), base: changed.commit, root: changed.root)
    let chosen = AffectedTasks(
      selection: selection, changed: changed.files, base: changed.base, definitions: definitions)
    // A group chosen for what it depends on would pull in its other dependencies: groups do
    // nothing, so the tasks it holds that are affected stand for it.
    let names = selection.members.filter { chosen.reasons[$0] != nil && graph[$0].action.kindName != "group" }
    guard !names.isEmpty else {
      answer.say("nothing affected: no selected task's sources changed since \(changed.base)\n")
      return (nil, ExitStatus.success)
    }
    if dryRun {
      var text = "affected since \(changed.base):\n"
      for task in names { text += "  \(graph[task].name): \(chosen.reasons[task]!)\n" }
      answer.say(text + "\n")
    }
    return (GraphSelection(graph: graph, targets: names), 0)
  }

  /// `runner --graph FORMAT`: the selected graph.
  public func graph(_ format: GraphFormat) async -> Answer {
    var answer = newAnswer()
    guard let caching = cacheSettings(&answer), let (graph, selection) = load(&answer, wholeFile: true) else {
      return answer.failing()
    }
    let secrets = Self.secrets(of: graph)
    let shown = selection.namesMasked(by: secrets)
    if format == .json {
      let predictions = predictions(graph, selection, caching, &answer)
      JSONGraphRenderer(secrets: secrets).write(shown, predictions: predictions) { answer.say($0) }
    } else if format.isPicture {
      await format.draw(shown, into: &answer)
    } else {
      format.write(shown) { answer.say($0) }
    }
    return answer
  }

  /// `runner --list [--json]`: the tasks with their descriptions.
  public func list(json: Bool) -> Answer {
    var answer = newAnswer()
    guard let graph = loadGraph(&answer) else { return answer.failing() }
    ListRenderer().write(graph, json: json) { answer.say($0) }
    return answer
  }

  /// `runner --describe TASK`: everything about one task.
  public func describe(_ name: String) -> Answer {
    var answer = newAnswer()
    guard let graph = loadGraph(&answer) else { return answer.failing() }
    guard let index = graph.index(of: name) else {
      // Selecting the unknown name yields the usual "no task named … (did you mean …?)".
      do { _ = try GraphSelection(graph: graph, targetNames: [name]) } catch {
        answer.report(error.diagnostics)
      }
      return answer.failing()
    }
    let files = describedFiles(of: index, in: graph, &answer)
    answer.say(DescribeRenderer(secrets: Self.secrets(of: graph)).render(index, in: graph, files: files))
    return answer
  }

  /// `runner --clean-cache`: removes `.runner/cache` next to the task file.
  public func cleanCache() async -> Answer {
    switch await IncrementalStore.cleanCache(taskFile: options.taskFile, wait: !options.noWait) {
    case .success: return Answer()
    case .failure(let problem): return Answer(error: "\(problem)")
    }
  }

  /// The task names (and `NAME=value` params) a shell offers to complete: none when the file does not load.
  public static func taskNames(inFile path: String) -> [String] {
    guard let graph = try? TaskFileLoader.forRun().load(path: path) else { return [] }
    let tasks = graph.tasks.filter { !$0.isInternal && $0.values.isEmpty && !$0.name.contains("#") }
    // Params complete as NAME=CHOICE (or NAME=DEFAULT), after the task names.
    let params = tasks.flatMap { graph.file.params(of: $0) }.flatMap { param in
      param.choices.isEmpty
        ? ["\(param.name)=\(param.defaultValue ?? "")"] : param.choices.map { "\(param.name)=\($0)" }
    }
    return tasks.flatMap { [$0.name] + $0.aliases } + Array(Set(params)).sorted()
  }

  /// Loads the task file and selects the targets; adds the diagnostics (and, in CI, the
  /// annotations) to `answer` when either fails.
  ///
  /// - Parameter wholeFile: with no target and no default, select every task (rather than
  ///   list the tasks and fail).
  private func load(_ answer: inout Answer, bytes: [UInt8]? = nil, wholeFile: Bool = false) -> (
    TaskGraph, GraphSelection
  )? {
    guard let graph = loadGraph(&answer, bytes: bytes) else { return nil }
    do {
      let selection = try GraphSelection(graph: graph, targetNames: options.targets, wholeFile: wholeFile)
      return (graph, selection)
    } catch {
      if error.diagnostics.contains(where: { $0.message == TaskFileError.noDefaultTask.description }) {
        answer.say(ListRenderer().render(graph, json: false))
      }
      answer.report(error.diagnostics, annotating: options.reports)
      return nil
    }
  }

  /// Loads the task file (no selection: `--list` and `--describe` read the whole file).
  func loadGraph(_ answer: inout Answer, bytes: [UInt8]? = nil) -> TaskGraph? {
    let path = options.taskFile
    let loader = TaskFileLoader.forRun(
      invocation: Invocation(params: options.params, targets: options.targets, arguments: options.taskArguments))
    do {
      let graph = try bytes.map { try loader.load(bytes: $0, path: path) } ?? loader.load(path: path)
      // From here on, nothing runner prints or writes shows a secret of this file.
      PrintMask.hide(Self.secrets(of: graph))
      if !options.taskArguments.isEmpty { answer.report(Self.unreadArguments(graph, options.taskArguments)) }
      return graph
    } catch {
      answer.report(error.diagnostics, annotating: options.reports)
      return nil
    }
  }

  /// The words after `--` go to the targets as `"$@"`: a target whose commands read none of
  /// `$@`, `$*`, `$1`… would drop them without a word.
  static func unreadArguments(_ graph: TaskGraph, _ words: [String]) -> [Diagnostic] {
    let deaf = graph.tasks.filter { task in
      guard !task.arguments.isEmpty, case .shell(let commands) = task.action else { return false }
      return !commands.contains { Self.readsArguments($0.text) }
    }
    return deaf.prefix(3).map { task in
      Diagnostic(
        .warning,
        "the words after '--' (\(words.joined(separator: " "))) reach '\(task.name)' as \"$@\", "
          + "but its commands never read \"$@\", $* or $1…", at: task.location)
    }
  }

  /// True when shell text reads its positional parameters.
  static func readsArguments(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    for index in bytes.indices where bytes[index] == UInt8(ascii: "$") && index + 1 < bytes.count {
      var next = bytes[index + 1]
      if next == UInt8(ascii: "{"), index + 2 < bytes.count { next = bytes[index + 2] }
      if next == UInt8(ascii: "@") || next == UInt8(ascii: "*") || next == UInt8(ascii: "#")
        || (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(next)
      {
        return true
      }
    }
    return false
  }

  func cacheSettings(_ answer: inout Answer) -> CacheSettings? {
    do {
      return try CacheSettings(
        force: options.force || options.checkInputs, noCache: options.noCache, noWait: options.noWait,
        environment: getenv("RUNNER_CACHE_MAX"))
    } catch {
      answer.report([Diagnostic(.error, "\(error)")])
      return nil
    }
  }

  /// What a run would do with each selected task; the state's warnings (a damaged state) go to
  /// `answer`.
  private func predictions(
    _ graph: TaskGraph, _ selection: GraphSelection, _ caching: CacheSettings, _ answer: inout Answer
  ) -> [Int: CachePrediction] {
    let store = IncrementalPlanner.store(
      for: graph, settings: caching, environment: RunSession.environment(of: graph), images: PNGPixels())
    let predictions = IncrementalPlanner(selection: selection, store: store).predictShown()
    answer.report(store.warnings.map { Diagnostic(.warning, $0) })
    return predictions
  }

  /// With a remote executor named, where each task that runs something would run, and why
  /// not remotely.
  private func placements(_ selection: GraphSelection, _ caching: CacheSettings) -> [Int: String] {
    guard
      let address = RemoteSetup.executorAddress(
        options.remote, file: selection.graph.file, environment: ProcessEnvironment.current)
    else { return [:] }
    // Said as parsed, or as an error quotes it: without a password or a query.
    let shown: String
    do { shown = try RemoteEndpoint(parsing: address).description } catch { shown = error.text }
    var placements: [Int: String] = [:]
    for node in selection.members {
      let task = selection.graph[node]
      if case .group = task.action { continue }
      if let refusal = selection.graph.remoteExecutionRefusal(of: node) {
        placements[node] = "runs here: \(refusal)"
      } else if !caching.enabled || !caching.useCache {
        placements[node] = "runs here: remote execution goes through the local cache (--no-cache)"
      } else {
        placements[node] = "runs remotely on \(shown)"
      }
    }
    return placements
  }
}
