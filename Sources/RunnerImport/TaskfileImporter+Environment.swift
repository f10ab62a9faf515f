import RunnerModel

/// go-task's `env`: strings, values a command computes, and the names it sets.
extension TaskfileImporter {
  /// `env`: static values; a `sh:` one becomes a param whose default the command prints (a
  /// param is in the environment under its name), `commands`; others are reported.
  func environment(
    _ node: YAMLNode, _ context: Context, _ report: inout ImportReport, commands: inout [ImportedParam],
    fileLevel: Bool = true
  ) -> [(name: String, value: String)] {
    var found: [ImportedParam] = []
    var readingComputed: [(name: String, value: String)] = []
    // `NAME: '{{.V}}'` of a command-valued var: what the command prints, as `sh:`.
    var node = node
    if case .mapping(let entries) = node.kind {
      let computed = entries.filter { entry in
        guard fileLevel, let text = entry.value.scalar, let name = Self.soleTemplate(text) else { return false }
        return context.commandVars[name].flatMap { readingParams($0, context) } != nil
      }
      for entry in computed {
        let command = context.commandVars[Self.soleTemplate(entry.value.scalar ?? "") ?? ""] ?? ""
        if context.environmentNames[entry.name] == 1 {
          found.append(ImportedParam(name: entry.name, defaultCommand: readingParams(command, context)))
          report.approximate(
            "env: \(entry.name): {sh: …}", at: entry.key.location.line,
            "a param with default: { sh: … } (params are in the environment), run once when the file loads; "
              + "runner \(entry.name)=VALUE may set it")
        } else {
          // A task's env sets the name too, and a param would hide it there: the value is a
          // param of another name, which the file's env entry reads.
          let param = "sh_" + entry.name
          found.append(ImportedParam(name: param, defaultCommand: readingParams(command, context)))
          readingComputed.append((entry.name, "${\(param)}"))
          report.approximate(
            "env: \(entry.name): {sh: …}", at: entry.key.location.line,
            "the file's env reads a param \(param) with default: { sh: … }, run once when the file loads (also in "
              + "the commands' environment under that name)")
        }
      }
      node.kind = .mapping(entries.filter { entry in !computed.contains { $0.name == entry.name } })
    }
    let values = strings(node, context, &report) { entry, report in
      // A task's: its caller runs it before each command.
      if !fileLevel, shellOf(entry.value) != nil { return }
      if fileLevel, context.environmentNames[entry.name] == 1, let command = shellOf(entry.value),
        let readable = readingParams(command, context)
      {
        found.append(ImportedParam(name: entry.name, defaultCommand: readable))
        report.approximate(
          "env: \(entry.name): {sh: …}", at: entry.key.location.line,
          "a param with default: { sh: … } (params are in the environment), run once when the file loads; "
            + "runner \(entry.name)=VALUE may set it")
        return
      }
      report.notCarried(
        "env: \(entry.name)", at: entry.key.location.line,
        "runner's env values are strings: compute it in the commands, or in a task that writes $RUNNER_OUTPUT")
    }
    commands += found
    return values + readingComputed
  }

  /// `NAME` for a text that is `{{.NAME}}` alone.
  static func soleTemplate(_ text: String) -> String? {
    let trimmed = JustText.trimmed(text)
    guard trimmed.hasPrefix("{{"), trimmed.hasSuffix("}}") else { return nil }
    let inner = JustText.trimmed(String(trimmed.dropFirst(2).dropLast(2)))
    guard inner.hasPrefix("."), isName(inner.dropFirst()) else { return nil }
    return String(inner.dropFirst())
  }

  /// The names the file's `env` and its tasks' set.
  static func environmentNames(_ entries: [YAMLEntry]) -> [String: Int] {
    var blocks = entries.filter { $0.name == "env" }.map(\.value)
    if let tasks = entries.first(where: { $0.name == "tasks" })?.value, case .mapping(let all) = tasks.kind {
      for task in all {
        guard case .mapping(let fields) = task.value.kind else { continue }
        blocks += fields.filter { $0.name == "env" }.map(\.value)
      }
    }
    var names: [String: Int] = [:]
    for block in blocks {
      if case .mapping(let all) = block.kind { for entry in all { names[entry.name, default: 0] += 1 } }
    }
    return names
  }
}
