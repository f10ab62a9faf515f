/// The command line's part in expansion: `NAME=value` for the targets and the files that
/// declare it, and the words after `--` for the targets' nodes.
extension TaskFileExpander {
  /// The command line's `NAME=value`: per target task that declares NAME, and for the file.
  mutating func commandLineValues(_ scopes: [IncludeScope]) -> [Int: [String: String]] {
    let named = targetTasks()
    var overrides: [Int: [String: String]] = [:]
    var fileOverrides: [String: String] = [:]
    // `api:NAME=value`: the param of the file included as `api` alone.
    var scopedOverrides: [Int: [String: String]] = [:]
    for (written, value) in invocation.params where written.contains(":") {
      let colon = written.lastIndex(of: ":")!
      let namespace = String(written[..<colon])
      let name = String(written[written.index(after: colon)...])
      let matching = scopes.indices.filter {
        scopes[$0].namespace == namespace || scopes[$0].otherNamespaces.contains(namespace)
      }
      guard !matching.isEmpty else {
        let known = scopes.flatMap { [$0.namespace] + $0.otherNamespaces }.filter { !$0.isEmpty }
        let hint = Suggestion.closest(to: namespace, in: known).map { " (did you mean '\($0)'?)" } ?? ""
        usageErrors.append(Diagnostic(.error, "'\(written)=…': no file is included as '\(namespace)'\(hint)"))
        continue
      }
      for index in matching {
        guard let param = scopes[index].params.first(where: { $0.name == name }) else {
          let known = scopes[index].params.map(\.name)
          let hint =
            Suggestion.closest(to: name, in: known).map { " (did you mean '\($0)'?)" }
            ?? (known.isEmpty ? "" : " (params: \(known.joined(separator: ", ")))")
          usageErrors.append(
            Diagnostic(
              .error,
              "unknown param '\(name)': \(scopes[index].path), included as '\(namespace)', does not declare it\(hint)"))
          continue
        }
        if check(value, of: param, at: nil) { scopedOverrides[index, default: [:]][name] = value }
      }
    }
    for (name, value) in invocation.params where !name.contains(":") {
      var declared = false
      for index in named {
        guard let param = file.tasks[index].params.first(where: { $0.name == name }) else { continue }
        declared = true
        if check(value, of: param, at: nil) { overrides[index, default: [:]][name] = value }
      }
      // Every file that declares it takes the value, so each one's choices must allow it.
      var declarations: [ParamDeclaration] = []
      for param in scopeParams.joined() where param.name == name && !declarations.contains(param) {
        declarations.append(param)
      }
      if !declarations.isEmpty {
        declared = true
        var allowed = true
        for param in declarations where !check(value, of: param, at: nil) { allowed = false }
        if allowed { fileOverrides[name] = value }
      }
      if !declared {
        let known =
          Array(Set(scopeParams.flatMap { $0.map(\.name) })).sorted()
          + named.flatMap { file.tasks[$0].params.map(\.name) }
        let targets = named.map { "'\(file.tasks[$0].name)'" }.joined(separator: ", ")
        let axis = named.first { file.tasks[$0].matrix?.axes.contains { $0.name == name } ?? false }
        let hint =
          axis.map {
            " ('\(name)' is a matrix axis: run one combination as '\(file.tasks[$0].name)[\(name)=\(value)]')"
          }
          ?? Suggestion.closest(to: name, in: known).map { " (did you mean '\($0)'?)" }
          ?? (known.isEmpty ? "" : " (params: \(known.joined(separator: ", ")))")
        usageErrors.append(
          Diagnostic(
            .error,
            "unknown param '\(name)': neither the task file nor \(targets.isEmpty ? "a target" : targets) declares it"
              + hint))
      }
    }
    for index in scopes.indices {
      var values = scopes[index].parent.map { scopeValues[$0] } ?? [:]
      let own = index == 0 ? file.params : scopes[index].params
      let directory = scopes[index].fileDirectory
      // The command line, then the including file's `with:` (read with its values), then the default.
      let parentValues = values
      var fixed: Set<String> = []
      for param in own {
        let given: String? = scopes[index].with.last { $0.name == param.name }.flatMap { given in
          withValue(given, of: param, values: parentValues)
        }
        if let value = scopedOverrides[index]?[param.name] ?? fileOverrides[param.name] ?? given {
          values[param.name] = value
          fixed.insert(param.name)
        } else {
          values[param.name] = defaultValue(of: param, values: values, directory: directory)
        }
      }
      scopeValues.append(values)
      scopeFixed.append(fixed)
    }
    rootValues = scopeValues[0]
    return overrides
  }

  /// A param's default with the params before it (`values`) and `runner.*` filled in, or what its
  /// `sh:` command prints (once per run and directory; a failure is an error at the param).
  /// - Parameter before: the task's params declared before it, which it may read though they
  ///   have no value yet (a required one the command line does not set).
  mutating func defaultValue(
    of param: ParamDeclaration, values: [String: String], directory: String, before: [String] = []
  ) -> String? {
    if let command = param.defaultCommand {
      // The params before it are in its environment, as in a task's, over the file's `.env`
      // values and (for a task's param) the root file's `env`.
      // Names a shell keeps read-only (bash: UID, EUID, PPID, …) are left as the shell has them.
      let readOnly: Set<String> = ["UID", "EUID", "PPID", "BASHOPTS", "SHELLOPTS", "BASH_VERSINFO", "BASHPID"]
      var visible = commandEnvironment
      for (name, value) in values { visible[name] = value }
      let exported = visible.sorted { $0.key < $1.key }.filter {
        VariableText.isValidName($0.key[...]) && !readOnly.contains($0.key)
      }
      let script =
        exported.isEmpty
        ? command
        : "export " + exported.map { "\($0.key)='\($0.value.replacing("'", with: "'\\''"))'" }.joined(separator: " ")
          + " && {\n" + command + "\n}"
      let key = directory + "\u{0}" + script
      if let known = commandDefaults[key] { return known }
      let result = commandOutput(script, directory)
      if result.status != 0 {
        diagnostics.append(
          Diagnostic(
            .error,
            "the default of param '\(param.name)': '\(command)' failed (exit status \(result.status))",
            at: param.location))
      }
      var text = result.output
      while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
      commandDefaults[key] = text
      return text
    }
    // `${NAME}` is read too; a text that is no template so (a shell's `${A:-x}`) keeps it as text.
    guard let text = param.defaultValue, text.utf8.contains(UInt8(ascii: "$")),
      let template = (try? Template.parse(text, variables: true))
        ?? (Template.containsExpression(text) ? try? Template.parse(text) : nil)
    else { return param.defaultValue }
    return template.resolving { part in
      switch part {
      case .param(let name):
        if values[name] == nil, !before.contains(name),
          !scopeParams.joined().contains(where: { $0.name == name && $0 != param })
        {
          diagnostics.append(
            Diagnostic(
              .error,
              "the default of param '\(param.name)' reads params.\(name), which is not a param declared before it",
              at: param.location))
        }
        return [.literal(values[name] ?? "")]
      case .runner(let name):
        return [.literal(RunnerPlatform.value(name, root: rootDirectory, arguments: invocation.arguments))]
      // `${NAME}`: the file's `.env` values (and a task's param, the root file's `env`), then
      // runner's environment, as a `sh:` default sees them.
      case .variable(let name): return [.literal(commandEnvironment[name] ?? environment[name] ?? "")]
      default: return [part]
      }
    }.render { _, _ in nil }
  }

  /// An include's `with:` value for `param`, read with the including file's params (`values`)
  /// and `runner.*`; a value outside the param's choices is an error at it.
  mutating func withValue(_ given: ParamValue, of param: ParamDeclaration, values: [String: String]) -> String? {
    var unreadable: String?
    let text = given.value.resolving { part in
      switch part {
      case .param(let name):
        if values[name] == nil { unreadable = "params.\(name), which the including file does not declare" }
        return [.literal(values[name] ?? "")]
      case .runner(let name):
        return [.literal(RunnerPlatform.value(name, root: rootDirectory, arguments: invocation.arguments))]
      case .variable(let name): return [.literal("${\(name)}")]
      case .output(let task, _): unreadable = "deps.\(task), which an include cannot wait for"
      case .matrix(let name): unreadable = "matrix.\(name): an include has no matrix"
      case .literal: break
      }
      return [part]
    }.render { _, _ in nil }
    if let unreadable {
      diagnostics.append(Diagnostic(.error, "'with' of an include reads \(unreadable)", at: given.location))
      return nil
    }
    return check(text, of: param, at: given.location) ? text : nil
  }

  /// True when `value` is one of `param`'s choices (or it has none); else records the error.
  mutating func check(_ value: String, of param: ParamDeclaration, at location: SourceLocation?) -> Bool {
    guard !param.choices.isEmpty, !param.choices.contains(value) else { return true }
    let hint = Suggestion.closest(to: value, in: param.choices).map { " (did you mean '\($0)'?)" } ?? ""
    let diagnostic = Diagnostic(
      .error,
      "'\(value)' is not a choice of param '\(param.name)' (\(param.choices.joined(separator: ", ")))\(hint)",
      at: location)
    if location == nil { usageErrors.append(diagnostic) } else { diagnostics.append(diagnostic) }
    return false
  }

  static func choices(_ param: ParamDeclaration) -> String {
    param.choices.isEmpty ? "" : " (one of: \(param.choices.joined(separator: ", ")))"
  }

  /// The words after `--` go to the targets' nodes (and a matrix target's combinations).
  mutating func giveArguments() {
    guard !invocation.arguments.isEmpty else { return }
    var byName: [String: Int] = [:]
    for node in nodes { byName[node.name] = node.index }
    var written = invocation.targets.map { $0.hasPrefix(":") ? String($0.dropFirst()) : $0 }
    if written.isEmpty {
      written = file.defaultTargets.map(\.name)
      if written.isEmpty, byName["default"] != nil { written = ["default"] }
    }
    // The nodes the targets name (`test[py=3.12]` too), an include's default's tasks, a matrix
    // group's combinations; then each of those and its parts (`release#1`).
    var wanted = Set<String>()
    for target in written {
      let matched =
        TargetPattern.isPattern(target)
        ? nodes.filter { !$0.name.contains("#") && TargetPattern.matches(target, $0.name) }.map(\.index)
        : byName[target].map { [$0] } ?? []
      for index in matched {
        let node = nodes[index]
        wanted.insert(node.name)
        let isIncludeDefault =
          node.scope != 0 && node.scope < file.scopes.count && file.scopes[node.scope].namespace == node.name
        let isMatrixGroup: Bool
        if case .group = node.action, node.matrix != nil, node.taskName != nil {
          isMatrixGroup = true
        } else {
          isMatrixGroup = false
        }
        if isIncludeDefault || isMatrixGroup { wanted.formUnion(node.dependencies.map(\.name)) }
      }
    }
    var given: [Int] = []
    for index in nodes.indices {
      let name = nodes[index].name
      let whole = name.lastIndex(of: "#").map { String(name[..<$0]) }
      if wanted.contains(name) || (whole.map { Self.isPart(name, of: $0) && wanted.contains($0) } ?? false) {
        nodes[index].arguments = invocation.arguments
        given.append(index)
      }
    }
    // `args: pass` hands them on, to a dependency or a called task (and its parts), and on.
    while let index = given.popLast() {
      for edge in nodes[index].dependencies where edge.passesArguments {
        guard let next = byName[edge.name] else { continue }
        let parts = nodes.indices.filter { Self.isPart(nodes[$0].name, of: edge.name) }
        for target in [next] + parts where nodes[target].arguments.isEmpty {
          nodes[target].arguments = invocation.arguments
          given.append(target)
        }
      }
    }
  }

  /// The tasks the command line names, as selection reads them: `:name` is the root file's,
  /// a pattern all it matches, an include's namespace its default tasks; none named, the
  /// file's `default` (or its task named `default`).
  func targetTasks() -> [Int] {
    var written = invocation.targets.map { $0.hasPrefix(":") ? String($0.dropFirst()) : $0 }
    if written.isEmpty {
      written = file.defaultTargets.map(\.name)
      if written.isEmpty, taskIndex["default"] != nil { written = ["default"] }
    }
    var result: [Int] = []
    for target in written {
      let matched =
        TargetPattern.isPattern(target)
        ? file.tasks.filter { TargetPattern.matches(target, $0.name) }.map(\.index)
        : taskIndex[target].map { [$0] } ?? []
      for index in matched {
        let task = file.tasks[index]
        let isIncludeDefault =
          task.scope != 0 && task.scope < file.scopes.count && file.scopes[task.scope].namespace == task.name
        if isIncludeDefault {
          result += task.dependencies.compactMap { taskIndex[$0.name] }
        } else {
          result.append(index)
        }
      }
    }
    return result
  }
}
