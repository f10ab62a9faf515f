import RunnerModel

extension TaskfileImporter {
  /// One `cmds` item: a command, `cmd:` with its settings, a `task:` call, a `defer:`, or a
  /// `for:` loop.
  func commands(
    _ node: YAMLNode, _ context: Context, _ state: inout TaskState, _ report: inout ImportReport
  ) -> [ImportedCommand] {
    let line = node.location.line
    if let command = node.scalar {
      state.commandsSoFar += 1
      return [.shell(convertCommand(command, line: line, context, &state, &report))]
    }
    guard case .mapping(let fields) = node.kind else { return [] }
    let field = { (name: String) in fields.first { $0.name == name }?.value }
    if let deferred = field("defer") {
      var inner = TaskState()
      state.deferred += commands(deferred, context, &inner, &report)
      report.approximate(
        "defer", at: line,
        "runs after the task's other commands only when they succeed (runner has no deferred commands)")
      return []
    }
    if let name = field("task")?.scalar {
      if state.commandsSoFar > 0 {
        report.approximate(
          "task: \(name)", at: line,
          "a task call runs as a node of its own once its own deps are done: it may run before the commands above it")
      }
      state.commandsSoFar += 1
      return [.call(ImportedDependency(name, with: passed(fields, &report)))]
    }
    guard let command = field("cmd")?.scalar else {
      report.notCarried("cmds: …", at: line, "only commands, cmd:, task: and defer: are imported")
      return []
    }
    state.commandsSoFar += 1
    var items: [String?] = [nil]
    if let loop = field("for") { items = loopItems(loop, &report) }
    return items.map { item in
      var text = command
      if let item { text = replacingItem(text, with: item) }
      var script = convertCommand(text, line: line, context, &state, &report)
      if field("ignore_error")?.scalar == "true" { script += " || true" }
      if let platforms = field("platforms"), let condition = shellPlatforms(platforms) {
        script = "if \(condition); then \(script); fi"
        report.approximate("cmd: platforms", at: line, "checked with uname when the command runs")
      }
      return .shell(script)
    }
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

  /// `platforms` of one command as a shell test.
  func shellPlatforms(_ node: YAMLNode) -> String? {
    guard case .sequence(let items) = node.kind else { return nil }
    let tests = items.compactMap(\.scalar).compactMap { platform -> String? in
      guard let os = platform.split(separator: "/").first else { return nil }
      return "[ \"$(uname -s | tr '[:upper:]' '[:lower:]')\" = \(os) ]"
    }
    return tests.isEmpty ? nil : tests.joined(separator: " || ")
  }

  /// A command with `{{.NAME}}` → `${NAME}`, `{{.CLI_ARGS}}` → `"$@"`, a command-valued var →
  /// `$(command)`; anything else inside `{{ }}` is reported and left as written.
  func convertCommand(
    _ text: String, line: Int, _ context: Context, _ state: inout TaskState, _ report: inout ImportReport
  ) -> String {
    convertTemplates(text, line: line, &report) { name, report in
      switch name {
      case "CLI_ARGS":
        state.usesArguments = true
        state.argumentsLine = line
        return "\"$@\""
      case "USER_WORKING_DIR": return "${RUNNER_INVOCATION_DIR}"
      case "TASK": return "${RUNNER_TASK}"
      case "ROOT_DIR", "TASKFILE_DIR", "TASK_DIR":
        report.approximate(
          "{{.\(name)}}", at: line, "became $PWD: the task's directory, which is the task file's unless it sets dir")
        return "${PWD}"
      default:
        if let command = context.commandVars[name] { return "$(\(command))" }
        return "${\(name)}"
      }
    }
  }

  /// An env or param value: `{{.NAME}}` → `${NAME}` (runner's env values read variables so).
  func convertValue(_ text: String, line: Int, _ report: inout ImportReport) -> String {
    convertTemplates(text, line: line, &report) { name, report in
      if name == "CLI_ARGS" || name == "ROOT_DIR" || name == "TASKFILE_DIR" {
        report.notCarried("{{.\(name)}}", at: line, "has no value outside a command in runner")
        return nil
      }
      return "${\(name)}"
    }
  }

  /// A `with:` value: `{{.NAME}}` → `${{ params.NAME }}`.
  func convertWithValue(_ text: String, line: Int, _ report: inout ImportReport) -> String {
    convertTemplates(text, line: line, &report) { name, _ in "${{ params.\(name) }}" }
  }

  /// A path or glob (`dir`, `sources`, `generates`): `{{.NAME}}` → `${{ params.NAME }}`.
  func convertPath(_ text: String, line: Int, _ report: inout ImportReport) -> String {
    convertTemplates(text, line: line, &report) { name, _ in "${{ params.\(name) }}" }
  }

  /// Replaces each `{{ .NAME }}` by `replacement(NAME)`; a template that is not a plain
  /// variable (functions, pipes, conditionals), or one `replacement` refuses, stays as
  /// written and is reported.
  func convertTemplates(
    _ text: String, line: Int, _ report: inout ImportReport,
    _ replacement: (String, inout ImportReport) -> String?
  ) -> String {
    var result = ""
    var rest = Substring(text)
    while let open = rest.firstRange(of: "{{") {
      result += rest[..<open.lowerBound]
      guard let close = rest[open.upperBound...].firstRange(of: "}}") else {
        rest = rest[open.lowerBound...]
        break
      }
      let inner = rest[open.upperBound..<close.lowerBound].trimmingSpaces()
      let written = String(rest[open.lowerBound..<close.upperBound])
      if inner.hasPrefix("."), Self.isName(inner.dropFirst()),
        let replaced = replacement(String(inner.dropFirst()), &report)
      {
        result += replaced
      } else {
        result += written
        if !inner.hasPrefix(".") || Self.isName(inner.dropFirst()) == false {
          report.notCarried(
            written, at: line, "Go template functions, pipes and conditionals have no equivalent: write it in shell")
        }
      }
      rest = rest[close.upperBound...]
    }
    return result + rest
  }

  static func isName(_ text: Substring) -> Bool {
    guard let first = text.first, first.isLetter || first == "_" else { return false }
    return text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
  }
}

extension Substring {
  func trimmingSpaces() -> Substring {
    var result = self
    while result.first?.isWhitespace == true { result.removeFirst() }
    while result.last?.isWhitespace == true { result.removeLast() }
    return result
  }
}
