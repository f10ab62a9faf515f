import ArgumentParser
import Glibc
import RunnerBasics
import RunnerCache
import RunnerExecution
import RunnerKit
import RunnerModel
import RunnerRendering

/// `runner [FILE] [TARGET...]`: load a task file and run, list or draw its graph.
struct RunnerCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "runner",
    abstract: "Run the tasks of a YAML task file as a dependency graph.",
    discussion: [
      "FILE defaults to ./tasks.yml. A first argument that is an existing file or ends in .yml or .yaml is the "
        + "file; otherwise it is a target, so `runner build` and `runner tasks.yml build` both work. With no "
        + "target, the file's `default` tasks run (or every task).",
      "Exit codes: 0 success, 1 a task failed, 2 invalid task file or usage, 130 interrupted (SIGINT), "
        + "143 terminated (SIGTERM).",
      "The task file format: docs/tasks-file.md.",
    ].joined(separator: "\n\n")
  )

  @Argument(
    help: "The task file (optional), then the tasks to run.",
    completion: .custom(RunnerCommand.completeTaskNames))
  var arguments: [String] = []

  @Option(name: [.customShort("f"), .long], help: "The task file (default: ./tasks.yml).")
  var file: String?

  @Flag(name: [.customShort("n"), .long], help: "Print the plan and run nothing.")
  var dryRun = false

  @Option(help: "Print the selected graph and exit: tree, dot, mermaid, json, svg, png (Graphviz) or html.")
  var graph: GraphFormat?

  @Flag(help: "List the tasks with their descriptions.")
  var list = false

  @Option(
    help: ArgumentHelp(
      "Show everything about one task: what it runs, its edges, its settings, where it is defined.",
      valueName: "task"))
  var describe: String?

  @Flag(help: "With --list: print JSON.")
  var json = false

  @Option(
    name: [.customShort("j", allowingJoined: true), .long],
    help: "Run at most N tasks at once (default: the file's 'concurrency', else the number of CPUs).")
  var jobs: Int?

  @Flag(name: [.customShort("k"), .long], help: "Keep running independent tasks after a failure.")
  var keepGoing = false

  @Option(help: "How long a cancelled task gets after SIGTERM before SIGKILL (e.g. 5s, 500ms).")
  var grace: String = "5s"

  @Option(help: "Write every state change and output line to FILE as JSON Lines.")
  var events: String?

  @Flag(help: "Run every selected task, even those up to date or in the cache.")
  var force = false

  @Flag(help: "Neither restore from nor store in the local cache (.runner/cache).")
  var noCache = false

  @Flag(help: "Remove the local cache (.runner/cache) and exit.")
  var cleanCache = false

  @Flag(help: "Fail at once if another runner holds this directory's lock, rather than wait.")
  var noWait = false

  @OptionGroup(title: "Reports")
  var report: ReportOptions

  func validate() throws {
    if let jobs, jobs < 1 { throw ValidationError("-j/--jobs must be at least 1, found \(jobs)") }
    if RunnerModel.parseDuration(grace) == nil {
      throw ValidationError("--grace takes a duration such as 5s or 500ms, found '\(grace)'")
    }
    if json && !list { throw ValidationError("--json goes with --list (use --graph json for the graph)") }
  }

  /// Splits the positional arguments into the task file and the targets.
  func fileAndTargets() -> (String, [String]) {
    if let file { return (file, arguments) }
    guard let first = arguments.first else { return ("tasks.yml", []) }
    var info = stat()
    let isFile = stat(first, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR
    if isFile || first.hasSuffix(".yml") || first.hasSuffix(".yaml") {
      return (first, Array(arguments.dropFirst()))
    }
    return ("tasks.yml", arguments)
  }

  mutating func execute() async -> Int32 {
    let printer = DiagnosticPrinter()
    let (path, targetNames) = fileAndTargets()
    if cleanCache { return await IncrementalStore.cleanCache(taskFile: path, wait: !noWait) }
    var caching: CacheSettings
    do {
      caching = try CacheSettings(
        force: force, noCache: noCache, noWait: noWait, environment: getenv("RUNNER_CACHE_MAX"))
    } catch {
      printer.print([Diagnostic(.error, "\(error)")])
      return ExitStatus.usage
    }
    let graph: TaskGraph
    let selection: GraphSelection
    let running = describe == nil && !list && self.graph == nil && !dryRun
    // Read here rather than by the loader: the bytes are part of the no-op record's key.
    let bytes = try? FileReader.read(path)
    if running, caching.enabled, !force, let bytes,
      let invocation = NoOpRecord.invocationKey(
        taskFile: path, bytes: bytes, arguments: Array(CommandLine.arguments.dropFirst()))
    {
      let stateDirectory = CacheSettings.stateDirectory(forTaskFile: path)
      if let code = await NoOpRun.attempt(
        invocation: invocation, stateDirectory: stateDirectory, reports: report.settings(), wait: !noWait)
      {
        return code
      }
      caching.noOpInvocation = invocation
    }
    if running, caching.enabled {
      // Without --force, the preload's thread goes on to check the recorded files.
      caching.preload = StatePreload(
        directory: CacheSettings.stateDirectory(forTaskFile: path),
        base: force ? nil : TaskFileLoader.directory(of: path))
    }
    do {
      graph = try bytes.map { try TaskFileLoader().load(bytes: $0, path: path) } ?? TaskFileLoader().load(path: path)
      selection = try GraphSelection(graph: graph, targetNames: targetNames)
    } catch {
      printer.print(error.diagnostics)
      report.settings().annotate(error.diagnostics)
      return ExitStatus.usage
    }
    if let name = describe {
      guard let index = graph.index(of: name) else {
        // Selecting the unknown name yields the usual "no task named … (did you mean …?)".
        do { _ = try GraphSelection(graph: graph, targetNames: [name]) } catch { printer.print(error.diagnostics) }
        return ExitStatus.usage
      }
      Terminal.write(DescribeRenderer().render(index, in: graph), to: 1)
      return ExitStatus.success
    }
    if list {
      Terminal.write(ListRenderer().render(graph, json: json), to: 1)
      return ExitStatus.success
    }
    if self.graph == .json || (self.graph == nil && dryRun) {
      let store = IncrementalPlanner.store(
        for: graph, settings: caching, environment: RunSession.environment(of: graph))
      let predictions = IncrementalPlanner(selection: selection, store: store).predictShown()
      let text =
        dryRun && self.graph == nil
        ? PlanRenderer().render(selection, predictions: predictions)
        : JSONGraphRenderer().render(selection, predictions: predictions)
      Terminal.write(text, to: 1)
      return ExitStatus.success
    }
    if let format = self.graph {
      if format.isPicture { return format.draw(selection) }
      Terminal.write(format.render(selection), to: 1)
      return ExitStatus.success
    }
    let settings = RunSettings(
      concurrency: jobs ?? graph.file.concurrency ?? Terminal.processorCount,
      failFast: keepGoing ? false : graph.file.failFast,
      grace: RunnerModel.parseDuration(grace) ?? .seconds(5),
      eventsPath: events, caching: caching)
    let code = await RunSession(selection: selection, settings: settings, reports: report.settings()).run()
    // Exit with the graph and the state still referenced: the kernel drops them at once,
    // where freeing tens of thousands of records one by one is a noticeable part of a no-op run.
    Glibc.exit(code)
  }
}

enum GraphFormat: String, ExpressibleByArgument, CaseIterable {
  case tree, dot, mermaid, json, svg, png, html

  func render(_ selection: GraphSelection) -> String {
    switch self {
    case .tree: return TreeRenderer().render(selection)
    case .dot: return DOTRenderer().render(selection)
    case .mermaid: return MermaidRenderer().render(selection)
    case .json: return JSONGraphRenderer().render(selection)
    case .svg, .png, .html: return ""  // drawn by draw(_:)
    }
  }
}
