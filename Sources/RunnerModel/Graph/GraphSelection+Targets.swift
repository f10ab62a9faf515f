extension GraphSelection {
  /// Selects the tasks named on the command line; none named: the file's `default`, else the
  /// task named `default`, else (with `wholeFile`, for `--graph`) every task.
  ///
  /// - Throws: `DiagnosticList` for a name that is not a task, with the closest name suggested,
  ///   for an internal task, and for no target at all when there is no default and no `wholeFile`.
  package init(graph: TaskGraph, targetNames: [String], wholeFile: Bool = false) throws(DiagnosticList) {
    var indices: [Int] = []
    var diagnostics: [Diagnostic] = []
    let names = graph.tasks.lazy.filter { !$0.isInternal }.map(\.name)
    if targetNames.isEmpty, wholeFile, graph.file.defaultTargets.isEmpty, graph.index(of: "default") == nil {
      // `--graph` with no target and no default shows the whole file.
      self.init(graph: graph, targets: [])
      return
    }
    if targetNames.isEmpty, graph.file.defaultTargets.isEmpty {
      guard let index = graph.index(of: "default") else {
        throw DiagnosticList([.error(.noDefaultTask, at: nil)])
      }
      indices.append(index)
    }
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
    for written in targetNames {
      // A leading ':' names a task of the root file (`runner :import`).
      let name = graph.file.resolvingAlias(written.hasPrefix(":") ? String(written.dropFirst()) : written)
      if TargetPattern.isPattern(name) {
        // Tasks as written: not the nodes made for other values or the parts of a split task.
        let matched = graph.tasks.filter {
          !$0.isInternal && $0.values.isEmpty && !$0.name.contains("#") && TargetPattern.matches(name, $0.name)
        }
        if matched.isEmpty {
          diagnostics.append(
            .error(.invalidValue(what: "target pattern '\(name)'", reason: "matches no task"), at: nil))
        }
        for task in matched where !indices.contains(task.index) { indices.append(task.index) }
        continue
      }
      guard let index = graph.index(of: name) else {
        let inside = graph.tasks.filter { !$0.isInternal && $0.values.isEmpty && $0.name.hasPrefix(name + ":") }
        if !inside.isEmpty {
          diagnostics.append(
            Diagnostic(
              .error,
              "'\(name)' is an include with no default task: name one of "
                + inside.map(\.name).joined(separator: ", ")))
          continue
        }
        // `runner deploy prod` for `runner deploy ENV=prod`: a choice of a param, written alone.
        if let param = graph.tasks.lazy.flatMap({ graph.file.params(of: $0) }).first(where: {
          $0.choices.contains(name)
        }) {
          diagnostics.append(.error(.unknownTarget(name, suggestion: "\(param.name)=\(name)"), at: nil))
          continue
        }
        diagnostics.append(.error(.unknownTarget(name, suggestion: Suggestion.closest(to: name, in: names)), at: nil))
        continue
      }
      if graph[index].isInternal {
        diagnostics.append(
          .error(
            .invalidValue(what: "task '\(name)'", reason: "is internal: only other tasks may depend on it"),
            at: nil, notes: [.note("'\(name)' is defined here", at: graph[index].location)]))
        continue
      }
      if !indices.contains(index) { indices.append(index) }
    }
    guard diagnostics.isEmpty else { throw DiagnosticList(diagnostics) }
    self.init(graph: graph, targets: indices)
    // A run (or a dry run) needs every required param of what it runs; drawing the graph does not.
    guard !wholeFile else { return }
    var reported = Set<String>()
    // Missing params are among the rarely set fields: a task without them is skipped unread.
    for member in members where graph.file.tasks[member].setsRareFields {
      let name = graph[member].taskName ?? graph[member].name
      for param in graph[member].missingParams where reported.insert(name + "\u{0}" + param.name).inserted {
        // The dependents that asked without a value: not the task's own parts or matrix group.
        let notes = graph.dependents[member].filter { isMember[$0] && (graph[$0].taskName ?? graph[$0].name) != name }
          .prefix(3).map { dependent in
            Diagnostic.note(
              "'\(graph[dependent].name)' depends on it here without a value for it (give one with 'with:')",
              at: graph.edgeLocation(from: dependent, to: member))
          }
        diagnostics.append(
          Diagnostic(
            .error,
            "task '\(name)' needs param '\(param.name)'\(TaskFileExpander.choices(param)): runner \(name) \(param.name)=VALUE"
              + (param.description.map { " (\($0))" } ?? ""), at: param.location, notes: Array(notes)))
      }
    }
    guard diagnostics.isEmpty else { throw DiagnosticList(diagnostics) }
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
