import RunnerModel

/// A task's fingerprint worked out ahead of the scheduler (by `SourcePrefetch`), assuming each
/// dependency hands on what its record says: the fingerprint and output digest it last had.
///
/// The scheduler's thread then only compares: if the dependencies' actual contributions are
/// the assumed ones, every input of the fingerprint is what was assumed (an output digest
/// covers the values that `${{ }}` templates read), so the fingerprint is this one.
struct FingerprintExpectation: Sendable {
  var fingerprint: Fingerprint
  /// The assumed contributions, sorted by name.
  var dependencies: [Fingerprint.Dependency]

  init(fingerprint: Fingerprint, dependencies: [Fingerprint.Dependency]) {
    self.fingerprint = fingerprint
    self.dependencies = dependencies
  }

  /// - Parameter dependencies: the names of the task's dependencies; nil if one has no record.
  init?(
    task: TaskDefinition, workingDirectory: String, check: SourceCheck, dependencies: [String],
    store: IncrementalStore
  ) {
    var assumed: [Fingerprint.Dependency] = []
    assumed.reserveCapacity(dependencies.count)
    var values: [String: [(key: String, value: String)]] = [:]
    for name in dependencies {
      guard let record = store.record(name) else { return nil }
      assumed.append(
        Fingerprint.Dependency(
          name: name,
          fingerprint: record.standIn(declaresOutputs: !record.outputs.isEmpty),
          outputDigest: record.outputDigest))
      if !task.environment.isEmpty { values[name] = record.values }
    }
    let environment = store.keyEnvironment(task) { name, key in
      values[name]?.last { $0.key == key }?.value
    }
    fingerprint = Fingerprint(
      task: task, workingDirectory: workingDirectory, environment: environment, dependencies: assumed,
      previous: nil, checked: check, disk: store.disk)
    self.dependencies = assumed.sorted { $0.name < $1.name }
  }

  /// Whether the dependencies' actual contributions are the assumed ones.
  func holds(for actual: [Fingerprint.Dependency]) -> Bool {
    guard actual.count == dependencies.count else { return false }
    return actual.sorted { $0.name < $1.name }.elementsEqual(dependencies) {
      $0.name == $1.name && $0.fingerprint == $1.fingerprint && $0.outputDigest == $1.outputDigest
    }
  }
}
