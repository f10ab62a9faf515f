import RunnerModel

extension TaskfileImporter {
  /// A call of task `name` (a `cmds:` `task:` or a `deps:` entry) with its `vars` and `for:`.
  /// Over a written list, runner's own `for:` on the call (`{{.ITEM}}` becoming
  /// `${{ item }}`), or — with `expand` (runner's dependencies have no `for:`), or when the
  /// task's name itself holds `{{.ITEM}}` — one call per item, the item written in.
  ///
  /// - Returns: nil when the call cannot be carried over (reported): a name with a template
  ///   that is not the loop's item.
  func calls(
    _ name: String, _ fields: [YAMLEntry], at line: Int, _ context: Context, _ report: inout ImportReport,
    expand: Bool = false
  ) -> [ImportedDependency]? {
    if let condition = fields.first(where: { $0.name == "if" }) {
      report.notCarried(
        "if: \(condition.value.scalar ?? "…")", at: condition.key.location.line,
        "runner's task calls have no condition: the call fails instead (write the test in the called task's if:)")
      return nil
    }
    var items: [LoopItem] = []
    if let node = fields.first(where: { $0.name == "for" })?.value {
      switch loop(node, context, &report, call: true) {
      case .items(let found):
        // Nothing to call: go-task calls nothing either.
        if found.isEmpty { return [] }
        items = found
      case .shell(_, let item, _, let found):
        // Files or words found when runner loads the file: runner's own `for:`.
        if context.taskDirectoryReadsVars {
          report.notCarried(
            "for: \(node.scalar ?? "var")", at: node.location.line,
            "the task's dir reads vars: runner finds a for:'s values before it knows that directory")
          return nil
        }
        guard !Self.mentionsItem(name), !name.contains("{{") else {
          report.notCarried(
            "task: \(name)", at: line, "a task named by a template: runner names the tasks it calls as written")
          return nil
        }
        report.approximate(
          "for: \(node.scalar ?? "var: " + Self.loopVariable(node))", at: node.location.line,
          "runner finds the values when it loads the file, go-task when the task starts (after what ran before it)")
        var looped = context
        looped.inCallLoop = true
        looped.callItemName = item
        var call = ImportedDependency(name, with: passed(fields, looped, &report))
        call.forFound = found
        return [call]
      case nil: return nil
      }
    }
    let plain = items.allSatisfy { $0.fields.isEmpty && $0.name == "ITEM" }
    let itemized = !items.isEmpty && (expand || !plain || Self.mentionsItem(name))
    let rest = itemized ? (items.first?.apply(name) ?? name) : name
    guard !rest.contains("{{") else {
      report.notCarried(
        "task: \(name)", at: line, "a task named by a template: runner names the tasks it calls as written")
      return nil
    }
    if itemized {
      return items.map { item in
        var one = context
        one.loopItem = item
        return ImportedDependency(item.apply(name), with: passed(fields, one, &report))
      }
    }
    guard !items.isEmpty else { return [ImportedDependency(name, with: passed(fields, context, &report))] }
    var looped = context
    looped.inCallLoop = true
    var call = ImportedDependency(name, with: passed(fields, looped, &report))
    call.forEach = items.map(\.value)
    return [call]
  }

  /// The var a `for: { var: NAME }` loops over.
  static func loopVariable(_ node: YAMLNode) -> String {
    guard case .mapping(let entries) = node.kind else { return "…" }
    return entries.first { $0.name == "var" }?.value.scalar ?? "…"
  }

  static func mentionsItem(_ text: String) -> Bool {
    text.contains("{{.ITEM}}") || text.contains("{{ .ITEM }}")
  }

  /// A command that fails and says which construct it stands for.
  func failing(_ construct: String, line: Int) -> String {
    let message = "runner import: \(path):\(line): not carried over: \(construct): write it in shell"
    return "echo " + Self.quoted(message) + " >&2; exit 1"
  }

  /// Calls and dependencies naming a task the import did not carry over (a wildcard task, a
  /// name runner does not take), which would leave a file that does not load: a call becomes
  /// a command that fails and says so; a dependency is left out and the task fails first.
  func failingUnknownCalls(
    _ tasks: inout [ImportedTask], includes: [ImportedInclude], lines: [String: Int], _ report: inout ImportReport
  ) {
    let defined = Set(tasks.flatMap { [$0.name] + $0.aliases })
    let known = { (name: String) -> Bool in
      // `:NAME` is the root file's task: runner resolves it as go-task does, whatever file this is.
      name.hasPrefix(":") || defined.contains(name) || includes.contains { name.hasPrefix($0.namespace + ":") }
    }
    let why = "no task of that name was carried over (a wildcard task, or a name runner does not take)"
    for index in tasks.indices {
      let line = lines[tasks[index].name] ?? 1
      let missing = tasks[index].dependencies.filter { !known($0.name) }.map(\.name)
      if !missing.isEmpty {
        tasks[index].dependencies.removeAll { !known($0.name) }
        for name in missing { report.notCarried("deps: \(name)", at: line, why + ": the task fails instead") }
        tasks[index].commands.insert(
          .shell(failing("deps: " + missing.joined(separator: ", "), line: line)), at: 0)
      }
      tasks[index].commands = tasks[index].commands.map { command in
        guard case .call(let call) = command, !known(call.name) else { return command }
        report.notCarried("task: \(call.name)", at: line, why + ": the call fails instead")
        return .shell(failing("task: \(call.name)", line: line))
      }
    }
  }

  /// go-task runs a called task at each call (`run: always`, its default); runner runs a task
  /// once per run for each set of params: a task called twice with the same vars is reported.
  /// An included task counts under its include's first name: an include alias (a second include
  /// of the same file, the same way) names the same tasks in runner.
  func reportRepeatedCalls(
    _ tasks: [ImportedTask], runsOnce: Set<String>, lines: [String: Int], includes: [ImportedInclude] = [],
    _ report: inout ImportReport
  ) {
    var first: [String: String] = [:]
    for include in includes {
      let same = includes.first {
        $0.path == include.path && $0.directory == include.directory
          && $0.with.elementsEqual(include.with) { $0.name == $1.name && $0.value == $1.value }
      }
      first[include.namespace] = same?.namespace ?? include.namespace
    }
    let canonical = { (name: String) -> String in
      guard let colon = name.firstIndex(of: ":"), let namespace = first[String(name[..<colon])] else { return name }
      return namespace + name[colon...]
    }
    var counts: [String: Int] = [:]
    var order: [String] = []
    var callers: [String: String] = [:]
    for task in tasks {
      let calls =
        task.dependencies
        + task.commands.compactMap { command -> ImportedDependency? in
          if case .call(let call) = command { return call }
          return nil
        }
      for call in calls where call.forEach.isEmpty && call.forFound == nil {
        let key = ([canonical(call.name)] + call.with.map { "\($0.name)=\($0.value)" }).joined(separator: "\u{0}")
        if counts[key] == nil { order.append(key) }
        counts[key, default: 0] += 1
        callers[key] = callers[key] ?? task.name
      }
    }
    for key in order where (counts[key] ?? 0) > 1 {
      let name = String(key.split(separator: "\u{0}").first ?? "")
      if let line = lines[name] {
        guard !runsOnce.contains(name) else { continue }
        report.approximate(
          "task: \(name)", at: line,
          "called \(counts[key] ?? 0) times with the same vars: runner runs a task once per run for each set of "
            + "params, go-task at each call (run: always)")
      } else if name.contains(":"), let caller = callers[key], let line = lines[caller] {
        // An included file's task: its `run:` is not known here.
        report.approximate(
          "task: \(name)", at: line,
          "called \(counts[key] ?? 0) times with the same vars (an include's alias names the same tasks): runner "
            + "runs a task once per run for each set of params, go-task at each call unless it says run: once")
      }
    }
  }

  /// An alias two tasks share: go-task refuses to run it ("Found multiple tasks"), runner
  /// refuses the file; the import drops it from both and says so.
  func dropSharedAliases(_ tasks: inout [ImportedTask], lines: [String: Int], _ report: inout ImportReport) {
    var owners: [String: [String]] = [:]
    for task in tasks { for alias in task.aliases { owners[alias, default: []].append(task.name) } }
    let shared = owners.filter { $0.value.count > 1 }
    guard !shared.isEmpty else { return }
    for (alias, names) in shared.sorted(by: { $0.key < $1.key }) {
      report.approximate(
        "aliases: \(alias)", at: lines[names[0]] ?? 1,
        "an alias of \(names.joined(separator: " and ")): go-task refuses to run it (several tasks match), "
          + "runner refuses such a file, so it is left out")
    }
    for index in tasks.indices { tasks[index].aliases.removeAll { shared[$0] != nil } }
  }
}
