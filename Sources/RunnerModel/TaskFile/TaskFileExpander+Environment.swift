import RunnerBasics

/// The environment each node gets: `.env` files, the files' and the task's `env`, params, and
/// `${NAME}` / `${{ params.X }}` filled in, by the documented precedence.
extension TaskFileExpander {
  /// The file's `dotenv` (what runner's environment does not set, or all of an overriding
  /// file's), `env` and params, in the order they apply over runner's environment.
  mutating func baseEnvironment() -> [EnvironmentEntry] {
    var entries: [EnvironmentEntry] = []
    for value in dotEnv(file.dotenv, directory: file.directory) {
      let entry = value.entry
      let text = entry.value.render { _, _ in nil }
      if environment[entry.name] == nil || value.overrides {
        entries.append(entry)
        fileDotEnv[entry.name] = text
        inheritedEnvironment[entry.name] = value.overrides ? text : environment[entry.name]
        if value.overrides {
          fileOverrides.insert(entry.name)
          // An earlier file's value the environment shadowed is not what the tasks see now.
          shadowed.removeAll { $0.name == entry.name }
        } else {
          fileOverrides.remove(entry.name)
        }
      } else {
        // A later file's value runner's environment shadows also ends an earlier override.
        entries.removeAll { $0.name == entry.name && $0.origin == .dotenv }
        inheritedEnvironment[entry.name] = environment[entry.name]
        fileOverrides.remove(entry.name)
        shadowed.append(entry)
      }
    }
    for entry in file.environment {
      var resolved = entry
      let (known, values, inherited, dotEnv) = (fileEnvironment, rootValues, inheritedEnvironment, fileDotEnv)
      resolved.value = resolve(entry.value, at: entry.location, task: nil, values: rootValues, combination: []) {
        name in
        known[name].map { $0.parts } ?? values[name].map { [.literal($0)] }
          ?? inherited[name].map { [.literal($0)] } ?? dotEnv[name].map { [.literal($0)] }
      }
      fileEnvironment[entry.name] = resolved.value
      entries.append(resolved)
    }
    for param in file.params {
      guard let value = rootValues[param.name] else { continue }
      let fromCommandLine = invocation.params.contains { $0.name == param.name }
      entries.append(
        EnvironmentEntry(
          name: param.name, value: Template(parts: [.literal(value)]), location: param.location,
          origin: fromCommandLine ? .commandLine : .param))
    }
    return entries
  }

  /// One `.env` entry, and whether its file overrides runner's environment.
  struct DotEnvValue {
    var entry: EnvironmentEntry
    var overrides: Bool
  }

  /// The entries of `.env` files (and of what `sh:` entries print), later over earlier;
  /// `${NAME}` reads runner's environment, then the entries before it (an overriding entry's
  /// first).
  mutating func dotEnv(_ references: [DotEnvReference], directory: String) -> [DotEnvValue] {
    var result: [DotEnvValue] = []
    var known = fileDotEnv
    var overriding = fileOverrides
    for reference in references {
      let path: String
      if let command = reference.command {
        path = "sh\u{0}" + directory + "\u{0}" + command
      } else {
        path = FilePath.resolve(reference.path, in: directory)
      }
      let entries: [EnvironmentEntry]
      if let cached = dotEnvCache[path] {
        entries = cached
      } else {
        entries = readDotEnv(reference, path: path, directory: directory)
        dotEnvCache[path] = entries
      }
      for entry in entries {
        let value = entry.value.resolving { part in
          guard case .variable(let name) = part else { return [] }
          if overriding.contains(name), let text = known[name] { return [.literal(text)] }
          return [.literal(environment[name] ?? known[name] ?? "")]
        }
        known[entry.name] = value.render { _, _ in nil }
        if reference.isOverriding { overriding.insert(entry.name) } else { overriding.remove(entry.name) }
        result.append(
          DotEnvValue(
            entry: EnvironmentEntry(name: entry.name, value: value, location: entry.location, origin: .dotenv),
            overrides: reference.isOverriding))
      }
    }
    return result
  }

  mutating func readDotEnv(_ reference: DotEnvReference, path: String, directory: String) -> [EnvironmentEntry] {
    let text: String
    let shown: String
    if let command = reference.command {
      let result = commandOutput(command, directory)
      if result.status != 0 {
        diagnostics.append(
          Diagnostic(
            .error, "dotenv command '\(command)' failed (exit status \(result.status))", at: reference.location))
        return []
      }
      text = result.output
      shown = reference.location.file
    } else {
      otherFiles.append(path)
      let bytes: [UInt8]
      do {
        bytes = try FileReader.read(path)
      } catch {
        if case .fileNotFound = error {
          if reference.isOptional { return [] }
          diagnostics.append(
            Diagnostic(
              .error,
              "dotenv file '\(reference.path)' not found (mark it optional: { path: \(reference.path), optional: true })",
              at: reference.location))
          return []
        }
        diagnostics.append(Diagnostic(.error, "dotenv file '\(reference.path)': \(error)", at: reference.location))
        return []
      }
      text = String(decoding: bytes, as: UTF8.self)
      shown = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
    }
    do {
      return try DotEnvParser.parse(text).map { entry in
        let parts: [Template.Part] = entry.value.parts.map {
          switch $0 {
          case .literal(let text): return .literal(text)
          case .variable(let name): return .variable(name)
          }
        }
        // A command's entries are placed at the entry that runs it.
        let location =
          reference.command == nil ? SourceLocation(file: shown, line: entry.line, column: 1) : reference.location
        return EnvironmentEntry(name: entry.name, value: Template(parts: parts), location: location, origin: .dotenv)
      }
    } catch {
      if let command = reference.command {
        diagnostics.append(
          Diagnostic(
            .error, "what dotenv command '\(command)' printed, line \(error.line): \(error.message)",
            at: reference.location))
      } else {
        diagnostics.append(
          Diagnostic(.error, error.message, at: SourceLocation(file: shown, line: error.line, column: error.column)))
      }
      return []
    }
  }

  /// Fills in the node's environment, condition and missing params.
  mutating func prepare(
    _ index: Int, task: TaskDefinition, values: [String: String], matrix: [(String, String)]
  ) {
    var entries: [EnvironmentEntry] = []
    // The included files' layers, outermost first (the root file's are in the base).
    var chain: [Int] = []
    var level = task.scope
    while level != 0, level < file.scopes.count {
      chain.insert(level, at: 0)
      level = file.scopes[level].parent ?? 0
    }
    var taskDotEnv: [DotEnvValue] = []
    for level in chain {
      taskDotEnv += dotEnv(file.scopes[level].dotenv, directory: file.scopes[level].fileDirectory)
    }
    if !task.dotenv.isEmpty {
      let directory = task.scope < file.scopes.count ? file.scopes[task.scope].fileDirectory : file.directory
      taskDotEnv += dotEnv(task.dotenv, directory: directory)
    }
    let layerNames = chain.flatMap { file.scopes[$0].environment.map(\.name) }
    let ownNames = Set(task.environment.map(\.name) + scope[task.index] + layerNames)
    var dotEnvValues: [String: String] = [:]
    var inherited = inheritedEnvironment
    for value in taskDotEnv {
      let entry = value.entry
      if value.overrides { inherited[entry.name] = entry.value.render { _, _ in nil } }
      if environment[entry.name] != nil, !value.overrides {
        nodes[index].shadowedEnvironment.append(entry)
        // The file names it: runner's value for it counts in the key.
        if !nodes[index].keyEnvironment.contains(entry.name) { nodes[index].keyEnvironment.append(entry.name) }
      } else if fileEnvironment[entry.name] == nil, !ownNames.contains(entry.name) {
        entries.append(entry)
      }
      dotEnvValues[entry.name] = entry.value.render { _, _ in nil }
    }
    var own: [String: Template] = [:]
    var layered: [String: Template] = [:]
    var (fileKnown, fileDotEnv) = (fileEnvironment, self.fileDotEnv)
    // The environment entries that would hide a param of the same name (params are strongest).
    var ownEnvironmentNames = Set(task.environment.map(\.name) + layerNames)
    // The root file's env read params as the run has them; a node with other values reads its
    // own, in order, and what reads those entries later reads the node's values too.
    if values.contains(where: { name, value in rootValues[name] != nil && rootValues[name] != value }) {
      for entry in file.environment where !entry.value.isResolved {
        var resolved = entry
        let known = fileKnown
        resolved.value = resolve(entry.value, at: entry.location, task: task, values: values, combination: matrix) {
          name in
          values[name].map { [.literal($0)] } ?? known[name].map { $0.parts }
            ?? inherited[name].map { [.literal($0)] } ?? fileDotEnv[name].map { [.literal($0)] }
        }
        fileKnown[entry.name] = resolved.value
        ownEnvironmentNames.insert(entry.name)
        entries.append(resolved)
      }
    }
    let layers = chain.flatMap { file.scopes[$0].environment }
    for (position, entry) in (layers + task.environment).enumerated() {
      var resolved = entry
      let (earlier, outer) = (own, layered)
      let isLayer = position < layers.count
      resolved.value = resolve(entry.value, at: entry.location, task: task, values: values, combination: matrix) {
        name in
        earlier[name].map { $0.parts } ?? values[name].map { [.literal($0)] } ?? outer[name].map { $0.parts }
          ?? fileKnown[name].map { $0.parts } ?? inherited[name].map { [.literal($0)] }
          ?? dotEnvValues[name].map { [.literal($0)] } ?? fileDotEnv[name].map { [.literal($0)] }
      }
      if isLayer { layered[entry.name] = resolved.value } else { own[entry.name] = resolved.value }
      entries.append(resolved)
    }
    for name in scope[task.index] {
      let isOwn = task.params.contains { $0.name == name }
      guard let value = values[name], isOwn || value != rootValues[name] || ownEnvironmentNames.contains(name) else {
        continue
      }
      let declaration =
        task.params.first { $0.name == name } ?? scopeParams[task.scope].first { $0.name == name }
      let fromCommandLine = invocation.params.contains { $0.name == name && $0.value == value }
      entries.append(
        EnvironmentEntry(
          name: name, value: Template(parts: [.literal(value)]), location: declaration?.location ?? task.location,
          origin: fromCommandLine ? .commandLine : .param))
    }
    nodes[index].environment = entries
    if task.waitFor.contains(where: { $0.written != nil }) {
      // Gates read what `env` values read: the task's env, params, the files' env, runner's, `.env`.
      fillGates(index, task: task, values: values, matrix: matrix) { name in
        own[name].map { $0.parts } ?? values[name].map { [.literal($0)] } ?? layered[name].map { $0.parts }
          ?? fileKnown[name].map { $0.parts } ?? inherited[name].map { [.literal($0)] }
          ?? dotEnvValues[name].map { [.literal($0)] } ?? fileDotEnv[name].map { [.literal($0)] }
      }
    }
    if Self.readsValues(task) { fillPaths(index, task: task, values: values, matrix: matrix) }
    // Required params without a value: an error only if the node is run (`--list` still works).
    nodes[index].missingParams =
      (scopeParams[task.scope].filter { param in !task.params.contains { $0.name == param.name } }
      + task.params).filter { $0.isRequired && values[$0.name] == nil }
    substituteCondition(index, task: task, values: values, matrix: matrix)
  }

  /// The `file:` and `tcp:` gates that read values, filled in and checked.
  mutating func fillGates(
    _ index: Int, task: TaskDefinition, values: [String: String], matrix: [(String, String)],
    variable: (String) -> [Template.Part]?
  ) {
    for position in nodes[index].waitFor.indices {
      let gate = nodes[index].waitFor[position]
      guard let written = gate.written else { continue }
      let template: Template
      do {
        template = try Template.parse(written, variables: true)
      } catch {
        diagnostics.append(.error(error, at: gate.location))
        continue
      }
      let text = resolve(
        template, at: gate.location, task: task, values: values, combination: matrix, variable: variable
      )
      .render { _, _ in nil }
      if case .file = gate.condition {
        nodes[index].waitFor[position].condition = .file(text)
      } else if let condition = ReadinessGate.tcp(text) {
        nodes[index].waitFor[position].condition = condition
      } else {
        diagnostics.append(
          Diagnostic(
            .error, "'tcp' of a gate in task '\(task.name)' must be HOST:PORT, found '\(text)' (from '\(written)')",
            at: gate.location))
      }
    }
  }

  /// `template` with params, matrix values, `runner.*` and `${NAME}` filled in.
  ///
  /// `root` is what `runner.root` stands for: the root file's directory, or in a path the way
  /// there from the path's own directory (so a key does not hold where the checkout is).
  mutating func resolve(
    _ template: Template, at location: SourceLocation, task: TaskDefinition?, values: [String: String],
    combination: [(String, String)], root: String? = nil, variable: (String) -> [Template.Part]?
  ) -> Template {
    if template.isResolved { return template }
    var problems: [String] = []
    let names = task.map { scope[$0.index] } ?? file.params.map(\.name)
    let result = template.resolving { part in
      switch part {
      case .param(let name):
        if let value = values[name] { return [.literal(value)] }
        if names.contains(name) { return [] }
        problems.append(
          "reads params.\(name), which is not a param of \(task.map { "task '\($0.name)'" } ?? "the file")")
        return []
      case .matrix(let name):
        if let value = combination.first(where: { $0.0 == name })?.1 { return [.literal(value)] }
        if task?.matrix?.names.contains(name) ?? false { return [] }
        problems.append("reads matrix.\(name), which is not an axis of \(task.map { "task '\($0.name)'" } ?? "a task")")
        return []
      case .runner(let name):
        return [.literal(RunnerPlatform.value(name, root: root ?? rootDirectory, arguments: invocation.arguments))]
      case .variable(let name): return variable(name) ?? []
      case .literal, .output: return [part]
      }
    }
    for problem in problems where !diagnostics.contains(where: { $0.message == problem && $0.location == location }) {
      diagnostics.append(Diagnostic(.error, problem, at: location))
    }
    return result
  }
}
