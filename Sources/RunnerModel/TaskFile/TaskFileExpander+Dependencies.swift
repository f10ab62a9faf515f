/// A node's edges: its `deps` resolved to nodes (with the values they pass), and a `run` list
/// split at its task calls.
extension TaskFileExpander {
  /// Resolves a node's `deps` to nodes, and points its output references at them.
  mutating func resolveDependencies(of index: Int) {
    let values = nodeValues[index]
    guard let taskName = nodes[index].taskName, let task = taskIndex[taskName] else { return }
    let written = file.tasks[task].dependencies
    var resolved: [Dependency] = []
    var renamed: [String: String] = [:]
    for dependency in written {
      guard let node = target(of: dependency, from: index, task: task, values: values) else {
        resolved.append(Dependency(name: dependency.name, location: dependency.location))
        continue
      }
      if renamed[dependency.name] == nil { renamed[dependency.name] = nodes[node].name }
      var edge = Dependency(name: nodes[node].name, location: dependency.location)
      edge.passesArguments = dependency.passesArguments
      resolved.append(edge)
    }
    for name in nodes[index].runtimeDependencies where !resolved.contains(where: { $0.name == name }) {
      resolved.append(Dependency(name: name, location: nodes[index].location))
    }
    nodes[index].dependencies = dependencyPacker.pack(resolved)
    if renamed.contains(where: { $0.key != $0.value }) {
      for position in nodes[index].environment.indices {
        nodes[index].environment[position].value.parts = nodes[index].environment[position].value.parts.map {
          guard case .output(let task, let key) = $0, let name = renamed[task] else { return $0 }
          return .output(task: name, key: key)
        }
      }
      if case .expression(let expression) = nodes[index].condition {
        nodes[index].condition = .expression(
          expression.renamingOutputs { renamed[$0] ?? $0 })
      }
    }
    // After the renaming: every part reads its dependencies' outputs under their node names.
    splitAtCalls(index, task: task, values: values)
  }

  /// The node a `deps` entry or a task call of node `index` names, with the values it passes
  /// (the file params that differ in `index`, then `with:`); nil when no task has that name.
  mutating func target(of dependency: Dependency, from index: Int, task: Int, values: [String: String])
    -> Int?
  {
    let written = dependency.name.hasPrefix(":") ? String(dependency.name.dropFirst()) : dependency.name
    guard let target = taskIndex[written] else { return nil }
    var targetValues = baseline[target]
    let ownParams = Set(file.tasks[target].params.map(\.name))
    // A file param the caller has another value for (set by `with:` or the command line)
    // flows on, if it is the same file's param (not the caller's own task param of that name).
    let callerDefaults = scopeValues[file.tasks[task].scope]
    let callerOwn = Set(file.tasks[task].params.map(\.name))
    // Values that came down from the caller: a default that reads other params keeps them.
    var flowed = Set<String>()
    for name in scope[target]
    where !ownParams.contains(name) && !callerOwn.contains(name) && values[name] != callerDefaults[name] {
      let declaration = scopeParams[file.tasks[target].scope].first { $0.name == name }
      if let value = values[name], let declaration, !declaration.choices.isEmpty, !declaration.choices.contains(value) {
        continue
      }
      targetValues[name] = values[name]
      flowed.insert(name)
    }
    // `with:` values that read the caller's deps' outputs, filled in when the call starts.
    var late: [(name: String, value: Template, shown: String)] = []
    for given in dependency.with {
      guard scope[target].contains(given.name) else {
        let known = scope[target]
        diagnostics.append(
          Diagnostic(
            .error,
            "task '\(dependency.name)' has no param '\(given.name)'"
              + (Suggestion.closest(to: given.name, in: known).map { " (did you mean '\($0)'?)" }
                ?? (known.isEmpty ? "" : " (its params: \(known.joined(separator: ", ")))")),
            at: given.location))
        continue
      }
      let axes = file.tasks[task].matrix?.axes.map(\.name) ?? []
      let combination = nodes[index].values.filter { axes.contains($0.0) }
      // A value read from a param that has none leaves this one without a value too.
      let readsMissing = given.value.parts.contains { part in
        if case .param(let name) = part { return values[name] == nil }
        return false
      }
      if readsMissing {
        targetValues[given.name] = nil
        continue
      }
      if !given.value.references.isEmpty {
        guard let value = lateValue(given, of: target, from: index, task: task, values: values) else { continue }
        // The text stands for the value until the run fills it in: one node per call site's text.
        late.append((given.name, value, value.description))
        targetValues[given.name] = value.description
        continue
      }
      let value = resolve(
        given.value, at: given.location, task: file.tasks[task], values: values, combination: combination
      ) { _ in nil }.render { _, _ in nil }
      let declaration =
        file.tasks[target].params.first { $0.name == given.name }
        ?? scopeParams[file.tasks[target].scope].first { $0.name == given.name }
      if let declaration, !check(value, of: declaration, at: given.location) { continue }
      targetValues[given.name] = value
    }
    // Defaults that read other params follow the values this edge gives.
    if !dependency.with.isEmpty {
      let definition = file.tasks[target]
      let fixed = definition.scope < scopeFixed.count ? scopeFixed[definition.scope] : []
      let set = Set(dependency.with.map(\.name)).union(invocation.params.map(\.name)).union(flowed).union(fixed)
      let directory =
        definition.scope < file.scopes.count ? file.scopes[definition.scope].fileDirectory : file.directory
      for param in scopeParams[definition.scope] + definition.params
      where !set.contains(param.name) && param.defaultValue.map(Template.containsExpression) == true {
        targetValues[param.name] = defaultValue(of: param, values: targetValues, directory: directory)
      }
    }
    let made = node(target, values: targetValues, combination: nil)
    if !late.isEmpty { fillLate(made, late) }
    return made
  }

  /// A `with:` value that reads outputs: its params filled in and its output references named
  /// by node; nil (an error said) unless it sets the called task's own param and reads the
  /// outputs of the caller's own deps.
  mutating func lateValue(_ given: ParamValue, of target: Int, from index: Int, task: Int, values: [String: String])
    -> Template?
  {
    guard file.tasks[target].params.contains(where: { $0.name == given.name }) else {
      diagnostics.append(
        Diagnostic(
          .error,
          "a 'with:' value that reads outputs may set the called task's own params; '\(given.name)' is its file's",
          at: given.location))
      return nil
    }
    var value = resolve(given.value, at: given.location, task: file.tasks[task], values: values, combination: []) {
      _ in nil
    }
    var parts: [Template.Part] = []
    for part in value.parts {
      guard case .output(let name, let key) = part else {
        parts.append(part)
        continue
      }
      guard let written = file.tasks[task].dependencies.first(where: { $0.name == name }),
        let producer = self.target(of: written, from: index, task: task, values: values)
      else {
        diagnostics.append(
          Diagnostic(
            .error,
            "'with' reads outputs of '\(name)', which is not one of the deps of task '\(file.tasks[task].name)' "
              + "(add it to 'deps')", at: given.location))
        return nil
      }
      parts.append(.output(task: nodes[producer].name, key: key))
    }
    value.parts = parts
    return value
  }

  /// Node `made` gets its late values: in its environment where the text stands for them, and
  /// the tasks they read as dependencies. What must be known when the file is loaded (`dir`,
  /// `sources`, `outputs`, `if:`) may not read them.
  mutating func fillLate(_ made: Int, _ late: [(name: String, value: Template, shown: String)]) {
    for entry in late {
      let producers = entry.value.references.map(\.task)
      for producer in producers where !nodes[made].runtimeDependencies.contains(producer) {
        nodes[made].runtimeDependencies.append(producer)
      }
      for position in nodes[made].environment.indices {
        nodes[made].environment[position].value.parts = nodes[made].environment[position].value.parts.flatMap {
          part -> [Template.Part] in
          guard case .literal(let text) = part, text.contains(entry.shown) else { return [part] }
          var pieces: [Template.Part] = []
          for (position, piece) in text.split(separator: entry.shown, omittingEmptySubsequences: false).enumerated() {
            if position > 0 { pieces += entry.value.parts }
            if !piece.isEmpty { pieces.append(.literal(String(piece))) }
          }
          return pieces
        }
      }
      let known =
        [nodes[made].directory ?? ""] + nodes[made].sources + nodes[made].outputs
        + [nodes[made].condition.map { "\($0)" } ?? ""]
      if known.contains(where: { $0.contains(entry.shown) }) {
        diagnostics.append(
          Diagnostic(
            .error,
            "task '\(nodes[made].taskName ?? nodes[made].name)' reads param '\(entry.name)' in 'dir', 'sources', "
              + "'outputs' or 'if', which must be known when the file is loaded; a 'with:' that reads outputs "
              + "gives it only when the call starts", at: nodes[made].location))
      }
    }
  }

  /// A `run` list with task calls becomes a chain: `deploy#1` runs the commands before the first
  /// call, `deploy#2` runs after it and the called node, …, and `deploy` itself runs the
  /// commands after the last call. Each part is a node, so a waiting part holds no slot. The
  /// called node gets no dependency on the calling task: running it alone (`runner build`) must
  /// not run a caller's commands. It gets an ordering instead (`after`): in a run that holds
  /// both, it starts once the part before the call has ended (unless that part already waits
  /// for it: then the call reuses what ran).
  mutating func splitAtCalls(_ index: Int, task: Int, values: [String: String]) {
    guard case .shell(let commands) = nodes[index].action, commands.contains(where: { $0.call != nil }) else { return }
    let whole = nodes[index]
    // With `sources`, the whole task is decided as one: its first part checks, its last records.
    let decided = whole.sources.isEmpty ? nil : WholeTask(name: whole.name, outputs: whole.outputs)
    let own = whole.dependencies
    var dependencies = own
    var pending: [Command] = []
    var part = 0
    var first: Int?
    var called: [String] = []
    var passing = Set<String>()
    for command in commands {
      guard let call = command.call else {
        pending.append(command)
        continue
      }
      part += 1
      var segment = whole
      segment.name = whole.name + "#\(part)"
      segment.index = nodes.count
      // A first part that decides for the whole needs an operation to decide in, even empty.
      segment.action =
        pending.isEmpty && (first != nil || decided == nil) ? .group : .shell(commandPacker.pack(pending))
      segment.sources = first == nil ? whole.sources : []
      segment.outputs = []
      segment.wholeTask = decided
      segment.dependencies = dependencies
      segment.arguments = whole.arguments
      // The first part decides the task's `if:` for all of them.
      if first != nil {
        segment.condition = nil
        segment.preconditions = []
        segment.prompt = nil
      }
      segment.callDependencies = called
      first = first ?? segment.index
      nodes.append(segment)
      nodeValues.append(values)
      pending = []
      guard let callee = target(of: call, from: index, task: task, values: values) else {
        let names = file.tasks.lazy.map(\.name)
        diagnostics.append(
          .error(
            .undefinedDependency(
              task: whole.name, dependency: call.name, suggestion: Suggestion.closest(to: call.name, in: names)),
            at: call.location))
        return
      }
      nodes[callee].after.append(segment.name)
      nodes[segment.index].calledWhenEnded = [nodes[callee].name]
      if call.passesArguments { passing.insert(nodes[callee].name) }
      if !called.contains(nodes[callee].name) { called.append(nodes[callee].name) }
      // Each part keeps the task's own deps (done already), so its env may read their outputs,
      // and every task called so far (ended already), so that a called service stays up
      // until the task's last part has ended.
      dependencies =
        own.filter { !called.contains($0.name) } + [Dependency(name: segment.name, location: call.location)]
        + called.map {
          var edge = Dependency(name: $0, location: call.location)
          edge.passesArguments = passing.contains($0)
          return edge
        }
    }
    // The last part records what the whole task made: it too needs an operation, even empty.
    nodes[index].action =
      pending.isEmpty && decided == nil && whole.outputs.isEmpty ? .group : .shell(commandPacker.pack(pending))
    nodes[index].dependencies = dependencies
    nodes[index].writtenRun = Array(commands)
    nodes[index].sources = []
    nodes[index].wholeTask = decided
    nodes[index].callDependencies = called
    if let first {
      nodes[index].condition = nil
      nodes[index].preconditions = []
      nodes[index].prompt = nil
      nodes[first].laterParts = (1..<part).map { whole.name + "#\($0 + 1)" } + [whole.name]
    }
  }
}

extension ConditionExpression {
  /// The same expression with each output reference's task renamed.
  func renamingOutputs(_ rename: (String) -> String) -> ConditionExpression {
    switch self {
    case .literal: return self
    case .reference(.output(let task, let key)): return .reference(.output(task: rename(task), key: key))
    case .reference: return self
    case .equal(let a, let b): return .equal(a.renamingOutputs(rename), b.renamingOutputs(rename))
    case .notEqual(let a, let b): return .notEqual(a.renamingOutputs(rename), b.renamingOutputs(rename))
    case .and(let a, let b): return .and(a.renamingOutputs(rename), b.renamingOutputs(rename))
    case .or(let a, let b): return .or(a.renamingOutputs(rename), b.renamingOutputs(rename))
    case .not(let a): return .not(a.renamingOutputs(rename))
    }
  }
}
