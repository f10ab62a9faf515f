import Glibc
import RunnerModel

extension TaskfileImporter {
  /// One task (and one more for each alias).
  func task(_ entry: YAMLEntry, _ context: Context, _ report: inout ImportReport) -> [ImportedTask] {
    var task = ImportedTask(name: entry.name)
    guard Self.isTaskName(entry.name) else {
      report.notCarried(
        "task \(entry.name)", at: entry.key.location.line,
        "not a runner task name (letters, digits, '_', '-', '.', ':'): wildcard tasks have no equivalent; "
          + "use a param")
      return []
    }
    var state = TaskState()
    var context = context
    context.taskName = entry.name
    if case .mapping(let fields) = entry.value.kind {
      context.taskHasAliases = fields.contains { $0.name == "aliases" }
      context.taskHasFiles = fields.contains { ["sources", "generates", "status", "method"].contains($0.name) }
      if let method = fields.first(where: { $0.name == "method" })?.value.scalar { context.method = method }
    }
    switch entry.value.kind {
    case .scalar(let command, _):
      task.commands = [
        .shell(convertCommand(command, line: entry.value.location.line, context, &state, &report, failsLoudly: true))
      ]
    case .sequence(let items):
      task.commands = items.flatMap { commands($0, context, &state, &report) }
    case .mapping(let fields):
      // A task's vars first: every other field reads them.
      if let own = fields.first(where: { $0.name == "vars" }) {
        // A task's sh: vars run in its dir, for it alone: they stay `$(command)` where used.
        task.params = vars(own.value, &context, &report, what: "vars", fileLevel: false)
        context.taskParams = Set(task.params.map(\.name))
        for name in task.params.map(\.name) {
          context.inlineVars[name] = nil
          context.commandVars[name] = nil
        }
      }
      // `for: sources` and `for: generates` loop over the files these globs find.
      for key in ["sources", "generates"] {
        if let node = fields.first(where: { $0.name == key })?.value, case .sequence(let globs) = node.kind {
          // `- exclude: GLOB` as runner's `!GLOB`.
          context.taskFiles[key] = globs.compactMap { glob in
            if let text = glob.scalar { return text }
            guard case .mapping(let entries) = glob.kind, entries.count == 1, entries[0].name == "exclude",
              let excluded = entries[0].value.scalar
            else { return nil }
            return "!" + excluded
          }
        }
      }
      // A `dir` that reads vars is known only when runner loads the file: no `for:` may look there.
      context.taskDirectoryReadsVars = fields.contains { $0.name == "dir" && ($0.value.scalar ?? "").contains("{{") }
      for field in fields where field.name != "vars" { apply(field, to: &task, context, &state, &report) }
      if let (construct, line) = state.uncarriedDependency {
        task.commands.insert(.shell(failing(construct, line: line)), at: 0)
      }
      if task.dependencies.count > 1, let deps = fields.first(where: { $0.name == "deps" }) {
        let failFast = fields.contains { $0.name == "failfast" && $0.value.scalar == "true" }
        report.approximate(
          "deps", at: deps.key.location.line,
          "runner starts at most -j of them at once (go-task starts them all)"
            + (failFast
              ? ""
              : "; when one fails, runner stops the others (go-task lets them finish, unless failfast: true): "
                + "runner -k (--keep-going) lets them finish"))
      }
    }
    noteSourcesOfACaller(task, line: entry.key.location.line, &report)
    // A var nothing defines is go-task's environment variable of that name, which a caller's
    // vars or the command line set instead: a param whose default reads the environment.
    for name in state.environmentReads where !task.params.contains(where: { $0.name == name }) {
      task.params.append(ImportedParam(name: name, defaultValue: "${\(name)}"))
    }
    // Vars callers pass that the task does not define become params it takes.
    for name in context.passedVars[entry.name] ?? [] where !task.params.contains(where: { $0.name == name }) {
      if let global = context.fileParams[name] {
        task.params.append(
          ImportedParam(name: name, defaultValue: global.defaultValue ?? "", defaultCommand: global.defaultCommand))
      } else {
        task.params.append(ImportedParam(name: name, defaultValue: ""))
      }
    }
    if state.ignoreErrors {
      task.commands = task.commands.map {
        if case .shell(let script) = $0 {
          return .shell(Self.ignoringFailure(script, line: entry.key.location.line, &report))
        }
        return $0
      }
    }
    task.commands = task.commands + state.deferred
    if !state.environmentCommands.isEmpty {
      let prefix = state.environmentCommands.joined()
      task.commands = task.commands.map { command in
        guard case .shell(let text) = command else { return command }
        return .shell(prefix + text)
      }
    }
    if let made = state.madeDirectory {
      task.commands = task.commands.map { command in
        guard case .shell(let text) = command else { return command }
        return .shell("mkdir -p -- \(made) && cd -- \(made) || exit 1; " + text)
      }
    }
    if state.usesArguments, !task.commands.isEmpty {
      report.approximate(
        "{{.CLI_ARGS}}", at: state.argumentsLine,
        "the words after -- reach the task as \"$@\" (runner \(task.name) -- ARGS); they are arguments, not shell text")
    }
    task.aliases = state.aliases.map(\.name)
    for (name, value) in state.hostEnvironment.sorted(by: { $0.key < $1.key })
    where !task.environment.contains(where: { $0.name == name }) {
      task.environment.append((name, value))
    }
    // A conditional call's task takes the caller's params, which its condition and calls read.
    var wrappers = state.conditionalCalls
    for index in wrappers.indices {
      wrappers[index].params = task.params.map { ImportedParam(name: $0.name, defaultValue: "") }
      wrappers[index].environment = task.environment
      wrappers[index].directory = task.directory
    }
    let passed = task.params.map { (name: $0.name, value: "${{ params.\($0.name) }}") }
    task.commands = task.commands.map { command in
      guard case .call(var call) = command, wrappers.contains(where: { $0.name == call.name }) else { return command }
      call.with = passed
      return .call(call)
    }
    return [task] + wrappers
  }

  struct TaskState {
    /// Host values the commands read through the environment (`ROOT_DIR`, `RUNNER_HOST_OS`).
    var hostEnvironment: [String: String] = [:]
    var deferred: [ImportedCommand] = []
    var aliases: [(name: String, line: Int)] = []
    var ignoreErrors = false
    var usesArguments = false
    var argumentsLine = 0
    /// A dependency the import could not carry (reported): the task fails first, saying so.
    var uncarriedDependency: (construct: String, line: Int)?
    /// A `dir` not there now, as shell text: each command makes it and changes to it.
    var madeDirectory: String?
    /// `NAME="$(command)"; export NAME; ` for each `sh:` env of the task, before each command.
    var environmentCommands: [String] = []
    /// Internal tasks standing for calls with an `if:`: the condition theirs, the calls their commands.
    var conditionalCalls: [ImportedTask] = []
    /// Vars the task reads that nothing defines (go-task reads the environment for them), in order.
    var environmentReads: [String] = []
  }

  func apply(
    _ field: YAMLEntry, to task: inout ImportedTask, _ context: Context, _ state: inout TaskState,
    _ report: inout ImportReport
  ) {
    let line = field.key.location.line
    let value = field.value
    switch field.name {
    case "desc": task.description = value.scalar
    case "summary":
      if let text = value.scalar {
        task.comments += text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while task.comments.last?.isEmpty == true { task.comments.removeLast() }
        if task.description == nil { task.description = task.comments.first }
        report.approximate("summary", at: line, "kept as comments above the task; runner shows its desc")
      }
    case "cmds":
      if case .sequence(let items) = value.kind {
        task.commands = items.flatMap { commands($0, context, &state, &report) }
      } else {
        task.commands = commands(value, context, &state, &report)
      }
    case "cmd": task.commands = commands(value, context, &state, &report)
    case "deps": task.dependencies = dependencies(value, context, &state, &report)
    // runner stops a task's other dependencies when one fails, as `failfast: true` does.
    case "failfast": break
    case "env":
      // A task's `sh:` env runs when the task runs: assigned and exported before each command.
      var computed: [ImportedParam] = []
      task.environment += environment(value, context, &report, commands: &computed, fileLevel: false)
      if case .mapping(let entries) = value.kind {
        for entry in entries {
          guard let command = shellOf(entry.value), Self.isName(Substring(entry.name)) else { continue }
          let converted = convertCommand(command, line: entry.key.location.line, context, &state, &report)
          // On lines of their own: a `#` comment or a here-document in the command stays whole.
          state.environmentCommands.append("\(entry.name)=\"$(\n\(converted)\n)\"; export \(entry.name); ")
          report.approximate(
            "env: \(entry.name): {sh: …}", at: entry.key.location.line,
            "assigned and exported before each command of the task (go-task runs it once for the task)")
        }
      }
    case "dotenv":
      task.dotenv = dotenv(value, &report)
      if !context.fileEnvironment.isEmpty {
        report.approximate(
          "dotenv", at: line,
          "a task's .env files give way to the file's env in runner (\(context.fileEnvironment.joined(separator: ", "))); "
            + "in go-task they win over it")
      }
    case "dir":
      guard let dir = value.scalar else { break }
      if !isThere(dir, context), !context.taskHasFiles {
        // go-task makes a missing dir: each command makes it and starts there.
        state.madeDirectory = madeDirectory(dir, line: line, context, &state, &report)
        report.approximate(
          "dir: \(dir)", at: line,
          "not there now: go-task makes a missing dir, so each command starts with mkdir -p and cd (the task's "
            + "dir in runner stays the file's)")
        break
      }
      task.directory = convertPath(dir, line: line, context, &report)
      noteDirectory(dir, line: line, context, &report)
    case "sources": task.sources = globs(value, key: "sources", context, &report)
    case "generates": task.outputs = globs(value, key: "generates", context, &report)
    case "status": task.condition = status(value, context, &state, &report)
    case "preconditions": task.preconditions = preconditions(value, context, &state, &report)
    case "requires": task.params += requires(value, defined: task.params.map(\.name), context, &report)
    case "if":
      if let condition = value.scalar {
        task.condition = convertCommand(condition, line: line, context, &state, &report)
      }
    case "internal": task.isInternal = value.scalar == "true"
    case "interactive": task.isInteractive = value.scalar == "true"
    case "ignore_error": state.ignoreErrors = value.scalar == "true"
    case "aliases":
      if case .sequence(let items) = value.kind {
        state.aliases = items.compactMap { item in item.scalar.map { ($0, item.location.line) } }
      }
    case "platforms": task.condition = platforms(value)
    case "run":
      if value.scalar != "once" {
        report.approximate(
          "run: \(value.scalar ?? "…")", at: line,
          "runner runs a task (with the same params) once per run, as run: once")
      }
    case "method":
      if value.scalar != "checksum" {
        report.approximate(
          "method: \(value.scalar ?? "…")", at: line, "runner compares the sources' contents, as method: checksum")
      }
    case "set", "shopt":
      let flags = shellFlags(value, key: field.name, &report)
      task.shellArguments =
        Array((task.shellArguments ?? Self.bashArguments + context.shellFlags + ["-c"]).dropLast())
        + flags + ["-c"]
    case "silent", "label", "summary_only": break
    case "prompt":
      // A list of prompts is one question per line.
      if let text = value.scalar {
        task.prompt = text
      } else if case .sequence(let items) = value.kind {
        task.prompt = items.compactMap(\.scalar).joined(separator: " ")
        report.approximate("prompt", at: line, "runner asks one question: the prompts are joined into one")
      }
    case "prefix":
      report.approximate("prefix", at: line, "runner prefixes each line with the task's name")
    default:
      report.notCarried(field.name, at: line, "go-task's '\(field.name)' has no equivalent in runner")
    }
  }

  func dependencies(
    _ node: YAMLNode, _ context: Context, _ state: inout TaskState, _ report: inout ImportReport
  ) -> [ImportedDependency] {
    guard case .sequence(let items) = node.kind else { return [] }
    var result: [ImportedDependency] = []
    for item in items {
      // go-task ignores an empty entry (`- ` alone).
      if item.isNull { continue }
      if let name = item.scalar {
        result.append(ImportedDependency(name))
        continue
      }
      let line = item.location.line
      guard case .mapping(let fields) = item.kind, let name = fields.first(where: { $0.name == "task" })?.value.scalar
      else {
        report.notCarried("deps: …", at: line, "only task names and {task, vars, for} are imported")
        state.uncarriedDependency = state.uncarriedDependency ?? ("deps: …", line)
        continue
      }
      // runner's dependencies have no `for:`: one per item.
      guard let calls = calls(name, fields, at: line, context, &report, expand: true) else {
        state.uncarriedDependency = state.uncarriedDependency ?? ("deps: \(name)", line)
        continue
      }
      result += calls
    }
    return result
  }

  /// A call's `vars` as `with:` values.
  func passed(_ fields: [YAMLEntry], _ context: Context, _ report: inout ImportReport) -> [(
    name: String, value: String
  )] {
    guard let vars = fields.first(where: { $0.name == "vars" })?.value, case .mapping(let entries) = vars.kind else {
      return []
    }
    return entries.compactMap { entry in
      // `ref: (index .LIST 0).name` of a value the file writes: the text it picks, known now.
      var picked: String?
      if case .mapping(let fields) = entry.value.kind, fields.count == 1, fields[0].name == "ref",
        let expression = fields[0].value.scalar
      {
        picked = staticPick(expression, context)
      }
      guard let value = entry.value.scalar ?? picked else {
        report.notCarried("vars: \(entry.name)", at: entry.key.location.line, "only string values are passed")
        return nil
      }
      return (entry.name, convertWithValue(value, line: entry.key.location.line, context, &report))
    }
  }

  /// The text a `ref:` expression picks from a list or map the file writes (`.A.b`, `index .A 0`,
  /// `(index .A 0).name`), when it is text; nil otherwise.
  func staticPick(_ written: String, _ context: Context) -> String? {
    var expression = Substring(JustText.trimmed(written))
    var path: [String] = []
    if expression.hasPrefix("(index ") || expression.hasPrefix("index ") {
      let wrapped = expression.hasPrefix("(")
      let end = wrapped ? expression.firstIndex(of: ")") : expression.endIndex
      guard let end else { return nil }
      let words = expression[expression.index(expression.startIndex, offsetBy: wrapped ? 7 : 6)..<end]
        .split(separator: " ")
      guard words.count == 2, words[0].hasPrefix(".") else { return nil }
      path = words[0].dropFirst().split(separator: ".").map(String.init) + [words[1].filter { $0 != "\"" }]
      expression = wrapped ? expression[expression.index(after: end)...] : ""
    }
    if !expression.isEmpty {
      guard expression.hasPrefix(".") else { return nil }
      path += expression.dropFirst().split(separator: ".").map(String.init)
    }
    return structuredNode(path, context)?.scalar
  }

  func globs(_ node: YAMLNode, key: String, _ context: Context, _ report: inout ImportReport) -> [String] {
    let items: [YAMLNode]
    if case .sequence(let list) = node.kind { items = list } else { items = [node] }
    return items.compactMap { item in
      if let glob = item.scalar {
        let written = glob.hasPrefix("./") ? String(glob.dropFirst(2)) : glob
        return convertPath(written, line: item.location.line, context, &report)
      }
      report.notCarried("\(key): exclude", at: item.location.line, "runner's globs have no exclusions")
      return nil
    }
  }

  /// A task with task calls and sources is up to date as one in runner too, but its key also
  /// covers what its calls reach: an edit there runs it again, where go-task calls it up to date.
  func noteSourcesOfACaller(_ task: ImportedTask, line: Int, _ report: inout ImportReport) {
    guard !task.sources.isEmpty,
      task.commands.contains(where: { if case .call = $0 { return true } else { return false } })
    else { return }
    report.approximate(
      "sources of \(task.name), which calls other tasks", at: line,
      "runner also runs it again when a file or the definition of a task it calls changes")
  }

  /// Letters (of any script), digits, `_`, `-`, `.` and `:`.
  static func isTaskName(_ name: String) -> Bool {
    !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || "_-.:".contains($0) }
  }

  /// `platforms: [linux, darwin/arm64]` → a runner.os / runner.arch condition.
  func platforms(_ node: YAMLNode) -> String? {
    guard case .sequence(let items) = node.kind else { return nil }
    let arches = ["amd64": "x86_64", "arm64": "aarch64", "386": "i686", "arm": "armv7l"]
    let terms = items.compactMap(\.scalar).map { platform -> String in
      let parts = platform.split(separator: "/").map(String.init)
      var checks: [String] = []
      if let os = parts.first, arches[os] == nil { checks.append("runner.os == '\(os)'") }
      if let arch = parts.last.flatMap({ arches[$0] }) { checks.append("runner.arch == '\(arch)'") }
      return checks.count == 1 ? checks[0] : "(" + checks.joined(separator: " && ") + ")"
    }
    return terms.isEmpty ? nil : "${{ " + terms.joined(separator: " || ") + " }}"
  }
}
