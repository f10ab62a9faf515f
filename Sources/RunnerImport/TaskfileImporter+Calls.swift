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
    let loop = fields.first { $0.name == "for" }?.value
    var items: [String] = []
    if let loop {
      items = loopItems(loop, &report).compactMap { $0 }
      // Nothing to call: go-task calls nothing either.
      if items.isEmpty, case .sequence(let values) = loop.kind, values.isEmpty { return [] }
      // A loop over a var or sources (reported): calling once would run something else.
      guard !items.isEmpty else { return nil }
    }
    let itemized = !items.isEmpty && (expand || Self.mentionsItem(name))
    let rest = itemized ? replacingItem(name, with: "") : name
    guard !rest.contains("{{") else {
      report.notCarried(
        "task: \(name)", at: line, "a task named by a template: runner names the tasks it calls as written")
      return nil
    }
    if itemized {
      return items.map { item in
        var one = context
        one.loopItem = item
        return ImportedDependency(replacingItem(name, with: item), with: passed(fields, one, &report))
      }
    }
    guard !items.isEmpty else { return [ImportedDependency(name, with: passed(fields, context, &report))] }
    var looped = context
    looped.inCallLoop = true
    var call = ImportedDependency(name, with: passed(fields, looped, &report))
    call.forEach = items
    return [call]
  }

  static func mentionsItem(_ text: String) -> Bool {
    text.contains("{{.ITEM}}") || text.contains("{{ .ITEM }}")
  }

  /// A command that fails and says which construct it stands for.
  func failing(_ construct: String, line: Int) -> String {
    let message = "runner import: \(path):\(line): not carried over: \(construct): write it in shell"
    return "echo " + Self.quoted(message) + " >&2; exit 1"
  }

  /// The values of a `for:` written as a list; other loops are reported.
  func loopItems(_ node: YAMLNode, _ report: inout ImportReport) -> [String?] {
    if case .sequence(let values) = node.kind { return values.compactMap(\.scalar) }
    report.notCarried(
      "for: \(node.scalar ?? "…")", at: node.location.line,
      "only a for: over a written list is imported (a loop over sources or a var: write a shell loop)")
    return [nil]
  }

  func replacingItem(_ text: String, with item: String) -> String {
    var result = text
    for spelling in ["{{.ITEM}}", "{{ .ITEM }}"] { result = result.replacing(spelling, with: item) }
    return result
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
}
