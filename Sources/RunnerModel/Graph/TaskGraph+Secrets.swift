import RunnerBasics

extension TaskGraph {
  /// The variables `task` keeps secret: the file's `secrets` and its own (an included file's
  /// are already its tasks').
  package func secretNames(of task: Int) -> [String] {
    let own = tasks[task].secretNames
    guard !file.secretNames.isEmpty else { return own }
    return file.secretNames + own.filter { !file.secretNames.contains($0) }
  }

  /// Every secret value of the run: each secret name's value in `environment` (runner's, with
  /// the file's `env`) and in the `env` of every task that keeps it secret.
  package func secretMask(environment: [String: String]) -> SecretMask {
    var values: [String] = []
    for name in file.secretNames { if let value = environment[name] { values.append(value) } }
    // A task without rare fields keeps no secret of its own: skipped without reading more of it.
    for index in file.tasks.indices where !file.secretNames.isEmpty || file.tasks[index].setsRareFields {
      let names = secretNames(of: index)
      guard !names.isEmpty else { continue }
      for name in tasks[index].secretNames { if let value = environment[name] { values.append(value) } }
      for entry in tasks[index].environment where names.contains(entry.name) {
        values.append(entry.value.render { _, _ in nil })
      }
    }
    return SecretMask(values: values)
  }
}

extension TaskGraph {
  /// This graph with `mask`'s values replaced in every task's name, for what runner shows and
  /// writes: a param's value is part of a node's name (`deploy[TOKEN=…]`). The graph that runs
  /// keeps the names, which tell nodes and their state apart.
  /// Control characters in a name (a param's value with a newline or an escape) are written
  /// out (`\n`, `\e`), so no name can fake a line of the console.
  ///
  /// - Returns: nil when no name changes (the usual case: the names are checked once).
  func namesMasked(by mask: SecretMask) -> TaskGraph? {
    let shown = { (name: String) in mask.masking(name).escapingControlCharacters() }
    // The name alone read from each task: a whole task copied costs a retain and a release of
    // everything it holds.
    guard
      self.file.tasks.indices.contains(where: { index in
        let name = self.file.tasks[index].name
        return shown(name) != name
      })
    else { return nil }
    var file = self.file
    for index in file.tasks.indices { file.tasks[index].name = shown(file.tasks[index].name) }
    return TaskGraph(self, file: file)
  }

  private init(_ graph: TaskGraph, file: TaskFile) {
    self.file = file
    dependencies = graph.dependencies
    dependents = graph.dependents
    names = graph.names
    calls = graph.calls
  }
}

extension GraphSelection {
  /// This selection over `graph.namesMasked(by:)`.
  package func namesMasked(by mask: SecretMask) -> GraphSelection {
    graph.namesMasked(by: mask).map { GraphSelection(self, graph: $0) } ?? self
  }

  private init(_ selection: GraphSelection, graph: TaskGraph) {
    self.graph = graph
    targets = selection.targets
    members = selection.members
    isMember = selection.isMember
    stage = selection.stage
    height = selection.height
  }
}
