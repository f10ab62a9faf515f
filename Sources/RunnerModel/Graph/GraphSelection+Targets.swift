extension GraphSelection {
  /// Selects the tasks named on the command line; none named: the file's `default`, else every task.
  ///
  /// - Throws: `DiagnosticList` for a name that is not a task, with the closest name suggested.
  package init(graph: TaskGraph, targetNames: [String]) throws(DiagnosticList) {
    var indices: [Int] = []
    var diagnostics: [Diagnostic] = []
    let names = graph.tasks.lazy.map(\.name)
    if targetNames.isEmpty {
      for target in graph.file.defaultTargets {
        guard let index = graph.index(of: target.name) else {
          diagnostics.append(
            .error(
              .unknownTarget(target.name, suggestion: Suggestion.closest(to: target.name, in: names)),
              at: target.location))
          continue
        }
        indices.append(index)
      }
    }
    for name in targetNames {
      guard let index = graph.index(of: name) else {
        diagnostics.append(.error(.unknownTarget(name, suggestion: Suggestion.closest(to: name, in: names)), at: nil))
        continue
      }
      if !indices.contains(index) { indices.append(index) }
    }
    guard diagnostics.isEmpty else { throw DiagnosticList(diagnostics) }
    self.init(graph: graph, targets: indices)
  }
}

/// Parses a duration as the task file writes it: `90s`, `5m`, `250ms`, or seconds.
package func parseDuration(_ text: String) -> Duration? {
  SchemaReader.parseDuration(text)
}

extension Error {
  /// The diagnostics this error carries, whatever its type.
  package var diagnostics: [Diagnostic] {
    if let list = self as? DiagnosticList { return list.diagnostics }
    if let diagnostic = self as? Diagnostic { return [diagnostic] }
    return [Diagnostic(.error, "\(self)")]
  }
}
