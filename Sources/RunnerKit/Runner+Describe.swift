import RunnerBasics
import RunnerCache
import RunnerExecution
import RunnerModel
import RunnerRendering

extension Runner {
  /// For `--describe`: the files the task's `sources` match now, and those its depfile named
  /// after its last run (from the state); nil when the cache settings are not valid.
  func describedFiles(of index: Int, in graph: TaskGraph, _ answer: inout Answer) -> DescribeRenderer.Files? {
    guard let caching = cacheSettings(&answer) else { return nil }
    // A task with calls decided as one checks its sources, and is recorded, on its first part.
    let deciding = graph[index].wholeTask.flatMap { graph.index(of: $0.firstPart) } ?? index
    let task = graph[deciding]
    let base = graph.file.directory
    let directory = task.directory.map { FilePath.resolve($0, in: base) } ?? base
    let matched = task.sources.isEmpty ? [] : SourceGlob.expand(Fingerprint.sourcePatterns(of: task), in: directory)
    var read: [String]?
    if task.discoversInputs {
      let store = IncrementalPlanner.store(
        for: graph, settings: caching, environment: RunSession.environment(of: graph), images: PNGPixels())
      // What it found: the paths it looked up in vain are in its key, not among what it read.
      read = store.record(task.name)?.discovered?.filter { $0.content != nil }.map(\.path)
      answer.report(store.warnings.map { Diagnostic(.warning, $0) })
    }
    return DescribeRenderer.Files(matched: matched, read: read)
  }
}
