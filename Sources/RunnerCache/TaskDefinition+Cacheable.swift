import RunnerModel

extension TaskDefinition {
  /// Whether a task gets fingerprinted at all.
  package var isCacheable: Bool {
    switch action {
    case .group: return false
    case .shell: return !sources.isEmpty || self.depfile != nil
    case .image(let steps):
      return !steps.contains { if case .load(.url, _) = $0.kind { return true } else { return false } }
    }
  }
}
