/// One task per target: deps, sources and outputs, commands, and what differs from make.
extension MakefileTaskBuilder {
  /// The task for `target`.
  mutating func task(for target: MakeTarget) -> ImportedTask {
    let kind = kinds[target.path] ?? .phony
    var task = ImportedTask(name: names[target.path] ?? target.path)
    task.description = target.description
    let dependencies = MakeWords.unique((target.prerequisites + target.orderOnly).compactMap { names[$0] })
    task.dependencies = dependencies.map { ImportedDependency($0) }
    if case .file = kind {
      if target.prerequisites.isEmpty {
        // make runs it only while the file does not exist: exactly a condition.
        task.condition = "test ! -e \(Self.shellQuoted(target.path))"
      } else {
        task.outputs = [target.path]
        task.sources = MakeWords.unique(target.prerequisites.filter(isFile))
      }
    }
    if !target.recipe.isEmpty {
      expander.targetVariables = reader.targetVariables[target.path] ?? [:]
      let callable: Bool
      if case .file = kind { callable = false } else { callable = true }
      let recipe = converter.convert(target, automatic: automatic(target), callable: callable)
      expander.targetVariables = [:]
      task.commands = recipe.commands
      if recipe.interactive, task.commands.contains(where: { if case .shell = $0 { true } else { false } }) {
        task.isInteractive = true
        expander.approximate(
          target.path, at: target.recipe.first?.line ?? target.line,
          "a command asks for a terminal (a shell or client in a container, `-it`, `read`): the task is "
            + "`interactive: true` (make gives every command the terminal; runner only interactive tasks, which "
            + "run alone)")
      }
    }
    reportDifferences(target, kind: kind, task: task)
    if case .group = kind, target.recipe.isEmpty, !reader.phony.contains(target.path),
      MakeWords.suffix(target.path) == ".o"
    {
      // make would build it with an implicit rule: the task fails and says so, rather than succeed
      // having made nothing.
      let message =
        "runner import: \(reader.path):\(target.line): not carried over: \(target.path): make builds it with an "
        + "implicit rule; write the command in the task"
      task.commands = [.shell("echo \(Self.shellQuoted(message)) >&2; exit 1")]
    }
    return task
  }

  /// `text` as one shell word.
  static func shellQuoted(_ text: String) -> String {
    let plain = text.allSatisfy { $0.isLetter || $0.isNumber || "-_./,:+@=%".contains($0) }
    return plain && !text.isEmpty ? text : TasksFileWriter.shellQuoted(text)
  }

  /// True for a prerequisite that names a file: one no rule makes, or a target whose recipe makes it.
  func isFile(_ path: String) -> Bool {
    guard let kind = kinds[path] else { return true }
    if case .file = kind { return true }
    return false
  }

  /// True for a target whose task declares `outputs` (a file target with prerequisites).
  func declaresOutputs(_ path: String) -> Bool {
    guard let kind = kinds[path], case .file = kind, let index = position[path] else { return false }
    return !targets[index].prerequisites.isEmpty
  }

  /// True for a target that always runs (phony, or a recipe that makes no file).
  func alwaysRuns(_ path: String) -> Bool {
    switch kinds[path] {
    case .phony?, .action?: return true
    case .group?: return targets[position[path] ?? 0].prerequisites.isEmpty == false
    default: return false
    }
  }

  /// Report entries for what the task does differently from the target.
  mutating func reportDifferences(_ target: MakeTarget, kind: Kind, task: ImportedTask) {
    let path = target.path
    switch kind {
    case .file where !task.sources.isEmpty:
      if let always = target.prerequisites.first(where: { kinds[$0] != nil && !isFile($0) }) {
        expander.approximate(
          path, at: target.line,
          "depends on '\(always)', which makes no file: make remakes '\(path)' on every run; runner only when "
            + "its sources or its dependencies' outputs change")
      }
    case .action:
      expander.approximate(
        path, at: target.line,
        "not .PHONY, but its recipe makes no file of that name: a task that runs every time (make skips it "
          + "while a file '\(path)' exists)")
    default: break
    }
    for item in MakeWords.unique(target.orderOnly) where !target.prerequisites.contains(item) {
      if names[item] == nil {
        expander.approximate(
          "| \(item)", at: target.line,
          "order-only prerequisite that no rule makes: make stops when it does not exist; runner does not check")
      } else if declaresOutputs(item) {
        expander.approximate(
          "| \(item)", at: target.line,
          "order-only prerequisite: a dependency, so it runs first, but a change to its outputs makes '\(path)' "
            + "run again (make only makes sure '\(item)' exists)")
      }
    }
    let actions = MakeWords.unique(target.prerequisites).filter { names[$0] != nil && alwaysRuns($0) }
    if actions.count > 1 {
      let listed = actions.map { "'\(names[$0] ?? $0)'" }.joined(separator: ", ")
      expander.approximate(
        "\(path): \(actions.joined(separator: " "))", at: target.line,
        "runner runs \(listed) at the same time (as make -j does); make runs them one after another, left to "
          + "right: where one needs another, add it to that task's deps")
    }
    for item in target.prerequisites where kinds[item] == nil && MakeWords.suffix(item) == ".o" {
      reportImplicit(item, line: target.line)
    }
    if case .group = kind, target.recipe.isEmpty, MakeWords.suffix(path) == ".o" {
      reportImplicit(path, line: target.line)
    }
  }

  /// An object file that only an implicit rule makes.
  mutating func reportImplicit(_ path: String, line: Int) {
    guard
      !reader.patternRules.contains(where: { $0.patterns.contains { MakeWords.stem(of: path, matching: $0) != nil } })
    else { return }
    if let rule = reader.suffixRules.last(where: { MakeWords.stem(of: path, matching: $0.pattern) != nil }) {
      expander.notCarried(
        path, at: line,
        "make builds it with the Makefile's own suffix rule `\(rule.written):` (line \(rule.line)), which is not "
          + "carried over: write a task that makes it")
      return
    }
    expander.notCarried(
      path, at: line,
      "make builds it with its built-in rule (`$(CC) $(CPPFLAGS) $(CFLAGS) -c` from the .c file of the same "
        + "name); runner has no implicit rules: write a task that makes it")
  }

  /// Pattern rules, with the files the import needed them for.
  mutating func reportRules() {
    for rule in reader.patternRules {
      let needed = MakeWords.unique(
        targets.flatMap { target -> [String] in
          var paths = target.prerequisites.filter { kinds[$0] == nil }
          if target.recipe.isEmpty, !reader.phony.contains(target.path) { paths.append(target.path) }
          return paths
        }
      ).filter { path in rule.patterns.contains { MakeWords.stem(of: path, matching: $0) != nil } }
      let files =
        needed.isEmpty
        ? "no target of this Makefile needs it"
        : "here \(needed.joined(separator: ", ")), which are sources no task makes"
      expander.notCarried(
        rule.written, at: rule.line,
        "a pattern rule: runner has no implicit rules (\(files)); write a task for each file (a static pattern "
          + "rule, `$(OBJS): %.o: %.c`, imports as one task per file)")
    }
  }
}
