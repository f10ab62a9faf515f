import Foundation
import RunnerEvents
import Testing

@testable import RunnerCache
@testable import RunnerExecution
@testable import RunnerModel

/// One run with incremental state: what ran, what was up to date or restored, the warnings.
struct CachedRun {
  let summary: RunSummary
  let observer: RecordingObserver
  let store: IncrementalStore
  let graph: TaskGraph

  /// The succeeded note of each task: "up to date", "restored from cache", or "ran".
  func outcome(_ name: String) -> String? {
    let index = graph.index(of: name)!
    for event in observer.recorded.reversed() where event.task == index {
      if case .state(let state, _, let reason) = event.kind, state.isFinal {
        guard state == .succeeded else { return state.rawValue }
        return reason == "up to date" || reason == "restored from cache" ? reason : "ran"
      }
    }
    return nil
  }

  /// The names of the tasks that ran, sorted.
  var ran: [String] { graph.tasks.map(\.name).filter { outcome($0) == "ran" }.sorted() }

  func lines(of name: String) -> [String] {
    let index = graph.index(of: name)!
    return observer.output.filter { $0.task == index }.map(\.text)
  }
}

extension RunHarness {
  var stateDirectory: String { directory.appendingPathComponent(".runner").path }

  /// Runs with incremental state, reloading the task file first (tests rewrite it).
  func runCached(
    _ targets: [String] = [], settings: CacheSettings = CacheSettings(), environment: [String: String] = [:]
  ) async throws -> CachedRun {
    let graph = try TaskFileLoader().load(path: path("tasks.yml"))
    let selection = try GraphSelection(graph: graph, targetNames: targets, wholeFile: true)
    let scratch = directory.appendingPathComponent(".scratch")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    var base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
    base.merge(environment) { $1 }
    // As `RunSession` does: the file's `env` on top of what runner inherits.
    for entry in graph.file.environment { base[entry.name] = entry.value.render { _, _ in nil } }
    let lock = try await RunLock.acquire(directory: stateDirectory, wait: true)
    let store = IncrementalStore(
      directory: stateDirectory, settings: settings, environment: base,
      keyed: Fingerprint.keyedVariables(of: graph.file), printWarnings: false)
    let observer = RecordingObserver()
    let scheduler = Scheduler(
      selection: selection, settings: RunSettings(concurrency: 4, grace: .seconds(2), caching: settings),
      observer: observer, scratchDirectory: scratch.path, baseEnvironment: base,
      factory: OperationFactory(store: store))
    let summary = await scheduler.run()
    store.finish()
    withExtendedLifetime(lock) {}
    return CachedRun(summary: summary, observer: observer, store: store, graph: graph)
  }

  func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  func write(_ name: String, _ text: String) throws {
    let url = directory.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try text.write(to: url, atomically: false, encoding: .utf8)
  }

  func remove(_ name: String) {
    try? FileManager.default.removeItem(atPath: path(name))
  }

  /// Every cache entry file.
  func cacheEntries() -> [String] {
    let root = stateDirectory + "/cache"
    let buckets = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
    return buckets.flatMap { bucket in
      ((try? FileManager.default.contentsOfDirectory(atPath: root + "/" + bucket)) ?? []).map {
        root + "/" + bucket + "/" + $0
      }
    }
  }
}
