import RunnerModel

extension TaskDefinition {
  /// Whether a task gets fingerprinted at all.
  package var isCacheable: Bool {
    switch action {
    case .group: return false
    case .shell: return !sources.isEmpty || discoversInputs
    case .image(let steps):
      return !steps.contains { if case .load(.url, _) = $0.kind { return true } else { return false } }
    }
  }
}

extension TaskDefinition {
  /// Whether a run finds inputs beyond its `sources`: from its `depfile`, or traced
  /// (`sources: auto`). Its key then holds the files found at its last run (`TaskRecord.discovered`).
  package var discoversInputs: Bool { self.depfile != nil || self.sourcesAuto }
}
