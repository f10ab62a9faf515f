import RunnerBasics
import RunnerModel

/// Predicts, without running anything, what a run would do with each selected task.
///
/// Fingerprints are computed as a run would, in dependency order; a dependency's outputs are
/// taken as recorded (or as its cache entry holds them). A dependency that would run makes its
/// dependents' fingerprints unknowable, so they are predicted to run, saying why.
package struct IncrementalPlanner {
  let selection: GraphSelection
  let store: IncrementalStore

  package init(selection: GraphSelection, store: IncrementalStore) {
    self.selection = selection
    self.store = store
  }

  /// A store for predictions only: reads state (warnings go to stderr), writes nothing, takes no lock.
  ///
  /// - Parameter images: decodes a cache entry's image, to predict what a restored image task
  ///   hands on.
  /// A store that writes nothing, for predictions; it prints no warning (its `warnings` say
  /// them, for the caller to).
  package static func store(
    for graph: TaskGraph, settings: CacheSettings, environment: [String: String], images: any ImageDigesting
  ) -> IncrementalStore {
    IncrementalStore(
      directory: CacheSettings.stateDirectory(for: graph.file), settings: settings, environment: environment,
      keyed: Fingerprint.keyedVariables(of: graph.file), secretNames: Set(graph.file.secretNames),
      secrets: graph.secretMask(environment: environment), printWarnings: false, touchesClock: false, images: images)
  }

  /// The predictions worth showing: for the tasks that can be up to date or restored, and only
  /// once `.runner/state` exists (before the first run every such task would simply run, and
  /// plans of projects that never ran stay as they were).
  package func predictShown() -> [Int: CachePrediction] {
    guard CacheFileSystem.status(store.directory + "/state") != nil else { return [:] }
    return predict().filter { $0.value.status != .always }
  }

  /// The prediction for every selected task, by graph index.
  package func predict() -> [Int: CachePrediction] {
    let graph = selection.graph
    var predictions: [Int: CachePrediction] = [:]
    /// What each predicted task would hand on: contribution and output values.
    var handed: [Int: (Fingerprint.Dependency, [String: String])] = [:]
    /// The later parts of tasks decided as one (`WholeTask`), by their first part.
    var firstParts: [Int: Int] = [:]
    for node in selection.members where graph[node].wholeTask != nil {
      for part in graph.laterParts(of: node) { firstParts[part] = node }
    }
    for node in selection.stages.joined() {
      let task = graph[node]
      if let first = firstParts[node], predictions[first]?.status == .run {
        // The whole task runs: so does this part, and what it hands on is not known.
        predictions[node] = CachePrediction(.run, "'\(graph[first].name)' will run")
        continue
      }
      if let first = firstParts[node], let decided = predictions[first],
        decided.status == .upToDate || decided.status == .restore
      {
        // Up to date or restored as one with its first part.
        predictions[node] = decided
        if let (dependency, values) = handed[first] {
          handed[node] = (
            Fingerprint.Dependency(
              name: task.name, fingerprint: dependency.fingerprint, outputDigest: dependency.outputDigest),
            values
          )
        }
        continue
      }
      let record = store.record(task.name)
      if case .group = task.action {
        predictions[node] = CachePrediction(.always, "a group")
        // A group hands on its dependencies' contributions, known only when all of theirs are.
        let known = graph.dependencies[node].compactMap { handed[$0]?.0 }
        if known.count == graph.dependencies[node].count {
          handed[node] = (
            Fingerprint.Dependency(name: task.name, fingerprint: nil, outputDigest: Fingerprint.groupDigest(known)), [:]
          )
        }
        continue
      }
      guard task.isCacheable else {
        predictions[node] = CachePrediction(.always, task.sources.isEmpty ? "no sources" : "loads a URL")
        if let record {
          let dependency = Fingerprint.Dependency(name: task.name, fingerprint: nil, outputDigest: record.outputDigest)
          handed[node] = (dependency, Dictionary(record.values, uniquingKeysWith: { $1 }))
        }
        continue
      }
      if store.settings.force {
        predictions[node] = CachePrediction(.run, "--force")
        continue
      }
      var dependencies: [Fingerprint.Dependency] = []
      var values: [String: [String: String]] = [:]
      var unknown: String?
      for dependency in graph.dependencies[node] {
        guard let known = handed[dependency] else {
          let name = graph[dependency].name
          let group: Bool
          if case .group = graph[dependency].action { group = true } else { group = false }
          unknown =
            predictions[dependency]?.status == .always && !group ? "'\(name)' has not run yet" : "'\(name)' will run"
          break
        }
        dependencies.append(known.0)
        values[graph[dependency].name] = known.1
      }
      if let unknown {
        predictions[node] = CachePrediction(.run, "dependency \(unknown)")
        continue
      }
      let directory = workingDirectory(of: task)
      let fingerprint = Fingerprint(
        task: task, workingDirectory: directory,
        environment: store.keyEnvironment(task) { values[$0]?[$1] },
        dependencies: dependencies, previous: record, disk: store.disk)
      let (prediction, result) = predict(task, record: record, fingerprint: fingerprint, directory: directory)
      predictions[node] = prediction
      if let result {
        handed[node] = (
          Fingerprint.Dependency(
            name: task.name,
            fingerprint: Fingerprint.standIn(
              fingerprint: fingerprint.value, dependencies: fingerprint.dependencies,
              declaresOutputs: Fingerprint.declaresOutputs(task)),
            outputDigest: result.digest),
          result.values
        )
      }
    }
    return predictions
  }

  func workingDirectory(of task: TaskDefinition) -> String {
    let base = selection.graph.file.directory
    guard let directory = task.directory else { return base }
    return FilePath.resolve(directory, in: base)
  }

  private func predict(_ task: TaskDefinition, record: TaskRecord?, fingerprint: Fingerprint, directory: String) -> (
    CachePrediction, (digest: String, values: [String: String])?
  ) {
    switch store.judge(task, record: record, fingerprint: fingerprint, directory: directory) {
    case .upToDate:
      // Only a record can be up to date.
      let record = record!
      return (CachePrediction(.upToDate), (record.outputDigest, Dictionary(record.values, uniquingKeysWith: { $1 })))
    case .stale(let reason):
      if store.settings.useCache, let key = store.cacheKey(task, fingerprint, directory: directory),
        let entry = try? store.cache.peek(key.value)
      {
        return (CachePrediction(.restore, reason.description), entry)
      }
      return (CachePrediction(.run, reason.description), nil)
    }
  }
}
