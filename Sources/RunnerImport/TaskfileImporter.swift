import RunnerModel

/// go-task's Taskfile (v3) → runner's format (docs/import.md lists each construct).
///
/// Global `vars` become file params (so `runner build NAME=value` sets them, as
/// `task build NAME=value` does), a task's own `vars` and the vars its callers pass become its
/// params, and `{{.NAME}}` becomes `${NAME}`: params are in every task's environment.
struct TaskfileImporter {
  let path: String
  /// Where `path` and the files it names are read from (empty: the current directory).
  var directory = ""

  /// `file` (relative to `path`'s directory's base) where it is on disk.
  func onDisk(_ file: String) -> String {
    file.hasPrefix("/") || directory.isEmpty ? file : directory + "/" + file
  }

  /// What the whole file tells each task's conversion.
  struct Context {
    /// Variables whose value is a command (`sh:`), by name: `{{.NAME}}` becomes `$(command)`.
    var commandVars: [String: String] = [:]
    /// Variables whose value holds shell syntax or templates, by name: spliced where used, as
    /// go-task splices every value (a param's `${NAME}` would pass it as plain words).
    var inlineVars: [String: String] = [:]
    /// For each task, the vars callers pass it (`task:` with `vars:`), which become its params.
    var passedVars: [String: [String]] = [:]
    /// Converting a call's `vars` under its `for:`: `{{.ITEM}}` is runner's `${{ item }}`.
    var inCallLoop = false
    /// The name `{{.NAME}}` of the loop's item under `inCallLoop` (`as:` renames it).
    var callItemName = "ITEM"
    /// Converting a call's `vars` for one item of its `for:` (a call per item): `{{.ITEM}}` is it.
    var loopItem: LoopItem?
    /// The task being converted, and whether it has `aliases`.
    var taskName: String?
    var taskHasAliases = false
    /// The params of the task being converted (its vars).
    var taskParams: Set<String> = []
    /// Whether the task being converted has `sources`, `generates` or `status` (read in its dir).
    var taskHasFiles = false
    /// go-task's `method` for the task (its own, else the file's): which of `{{.CHECKSUM}}` and
    /// `{{.TIMESTAMP}}` it sets.
    var method = "checksum"
    /// The task's `dir` reads vars (a `for:` that finds files cannot look there).
    var taskDirectoryReadsVars = false
    /// Converting a command inside a shell loop: `{{.NAME}}` is `${__runner_item}`.
    var shellItem: String?
    /// The value of each var written as plain text, file or task (for `for: var:`).
    var knownValues: [String: String] = [:]
    /// Vars holding a list of strings, by name.
    var listVars: [String: [String]] = [:]
    /// Vars holding a list or a map, by name: printed as Go prints them, `{{.MAP.key}}` too.
    var structuredVars: [String: YAMLNode] = [:]
    /// The task's `sources` and `generates` patterns, for `for: sources`.
    var taskFiles: [String: [String]] = [:]
    /// bash's flags for the file's `set:` and `shopt:`.
    var shellFlags: [String] = []
    /// The file's vars that became params, by name: a task's param of the same name (a var its
    /// callers pass) starts from the file's value, as go-task's task vars fall back to the file's.
    var fileParams: [String: ImportedParam] = [:]
    /// The names the file's `env` sets.
    var fileEnvironment: [String] = []
    /// The names any `env` of the file sets (the file's or a task's), with how many set each: a
    /// var of such a name is no param, since a param is in the environment and would hide the env
    /// value; an env computed by a command is a param only where no other env sets the name.
    var environmentNames: [String: Int] = [:]
  }

  func convert(_ text: String) throws(ImportError) -> (ImportedFile, ImportReport) {
    var report = ImportReport(file: path)
    let root: YAMLNode
    do {
      guard let parsed = try YAMLParser(file: path).parse(Array(text.utf8)) else {
        throw ImportError(file: path, line: 1, "the file is empty: go-task needs 'version' and 'tasks'")
      }
      root = parsed
    } catch let error as ImportError {
      throw error
    } catch {
      throw ImportError(file: path, line: nil, "\(error)")
    }
    guard case .mapping(let entries) = root.kind else {
      throw ImportError(file: path, line: root.location.line, "a Taskfile is a mapping with 'version' and 'tasks'")
    }
    try checkVariableTypes(entries)
    try checkFile(entries)
    var file = ImportedFile()
    file.header = ["Imported from \(path) (go-task) by runner import."]
    var context = Context()
    var envNode: YAMLNode?
    var includesNode: YAMLNode?
    let tasksNode = entries.first { $0.name == "tasks" }?.value
    if let tasksNode { context.passedVars = passedVars(tasksNode) }
    context.environmentNames = Self.environmentNames(entries)
    for entry in entries {
      let line = entry.key.location.line
      switch entry.name {
      case "version":
        if let version = entry.value.scalar, !version.hasPrefix("3") {
          report.approximate("version: \(version)", at: line, "read as version 3, the only one runner imports")
        }
      case "vars":
        file.params += globalVars(entry.value, &context, &report)
        for param in file.params { context.fileParams[param.name] = param }
      case "env": envNode = entry.value
      case "dotenv": file.dotenv = dotenv(entry.value, &report)
      case "includes": includesNode = entry.value
      case "tasks": break
      case "output":
        if entry.value.scalar != "prefixed" {
          report.approximate(
            "output: \(entry.value.scalar ?? "…")", at: line,
            "runner prefixes each line with its task; --output grouped holds a task's lines until it ends")
        }
      case "method":
        context.method = entry.value.scalar ?? "checksum"
        if context.method != "checksum" {
          report.approximate(
            "method: \(context.method)", at: line, "runner compares the sources' contents, as method: checksum")
        }
      case "silent", "run": break
      case "set", "shopt": context.shellFlags += shellFlags(entry.value, key: entry.name, &report)
      default:
        report.notCarried(entry.name, at: line, "go-task's '\(entry.name)' has no equivalent in runner")
      }
    }
    // After the file's vars, which include paths and `with:` values read.
    if let includesNode { file.includes = includes(includesNode, context, &report) }
    // go-task runs commands with a bash-like interpreter (`[[ ]]`, `&>` work), errexit only.
    file.shellArguments = Self.bashArguments + context.shellFlags + ["-c"]
    if let envNode { file.environment = environment(envNode, context, &report, commands: &file.params) }
    context.fileEnvironment = file.environment.map(\.name)
    if let tasksNode, case .mapping(let tasks) = tasksNode.kind {
      var lines: [String: Int] = [:]
      for entry in tasks {
        lines[entry.name] = entry.key.location.line
        file.tasks += task(entry, context, &report)
      }
      dropSharedAliases(&file.tasks, lines: lines, &report)
      failingUnknownCalls(&file.tasks, includes: file.includes, lines: lines, &report)
      let fileRunsOnce = entries.contains { $0.name == "run" && $0.value.scalar == "once" }
      let runsOnce = Set(
        tasks.filter { task in
          guard case .mapping(let fields) = task.value.kind else { return fileRunsOnce }
          let run = fields.first { $0.name == "run" }?.value.scalar
          return run == "once" || (run == nil && fileRunsOnce)
        }.map(\.name))
      reportRepeatedCalls(file.tasks, runsOnce: runsOnce, lines: lines, includes: file.includes, &report)
    } else if file.includes.isEmpty {
      throw ImportError(file: path, line: root.location.line, "the Taskfile has no 'tasks' mapping")
    }
    return (file, report)
  }

  /// The vars each task is called with, by task name, in first-seen order.
  func passedVars(_ tasks: YAMLNode) -> [String: [String]] {
    var result: [String: [String]] = [:]
    func visit(_ node: YAMLNode) {
      switch node.kind {
      case .mapping(let entries):
        if let called = entries.first(where: { $0.name == "task" })?.value.scalar,
          let vars = entries.first(where: { $0.name == "vars" })?.value, case .mapping(let passed) = vars.kind
        {
          // A name with the loop's item names a task per item (`calls`).
          var names = [called]
          if Self.mentionsItem(called), let loop = entries.first(where: { $0.name == "for" })?.value,
            case .sequence(let items) = loop.kind
          {
            names = items.compactMap(\.scalar).map { LoopItem(value: $0).apply(called) }
          }
          for task in names {
            for name in passed.map(\.name) where !(result[task] ?? []).contains(name) {
              result[task, default: []].append(name)
            }
          }
        }
        for entry in entries { visit(entry.value) }
      case .sequence(let items): items.forEach(visit)
      case .scalar: break
      }
    }
    visit(tasks)
    return result
  }

  /// Global `vars`: plain ones become file params; `sh:` ones are run where they are used;
  /// others are spliced where they are used.
  func globalVars(_ node: YAMLNode, _ context: inout Context, _ report: inout ImportReport) -> [ImportedParam] {
    vars(node, &context, &report, what: "vars")
  }

  /// `vars` of the file or a task: plain values become params (so the command line or a
  /// caller's `vars` set them), command-valued ones `$(command)` where used, and values with
  /// shell syntax or templates are spliced where used.
  func vars(
    _ node: YAMLNode, _ context: inout Context, _ report: inout ImportReport, what: String, fileLevel: Bool = true
  ) -> [ImportedParam] {
    guard case .mapping(let entries) = node.kind else { return [] }
    var params: [ImportedParam] = []
    var spliced: [(name: String, line: Int)] = []
    for written in entries {
      // The file's params so far: a later var's command may read them.
      if fileLevel { for param in params { context.fileParams[param.name] = param } }
      var entry = written
      // `secret: true` masks the value in go-task's own log of each command; runner logs no
      // command text (the value reaches it through the environment), so it is dropped.
      if case .mapping(let fields) = entry.value.kind, fields.contains(where: { $0.name == "secret" }) {
        entry.value.kind = .mapping(fields.filter { $0.name != "secret" })
      }
      // `value:` spells out a value of any type.
      if case .mapping(let fields) = entry.value.kind, fields.count == 1, fields[0].name == "value" {
        entry.value = fields[0].value
      }
      let line = entry.key.location.line
      // A task's var hides the file's of the same name, whatever kind either is.
      context.knownValues[entry.name] = nil
      context.listVars[entry.name] = nil
      context.structuredVars[entry.name] = nil
      context.commandVars[entry.name] = nil
      context.inlineVars[entry.name] = nil
      let mayBeParam = context.environmentNames[entry.name] == nil
      // A task's `{{.X | default …}}` of a var the file sets reads the file's value (spliced).
      let fileSets = !fileLevel && context.fileParams[entry.name] != nil
      if mayBeParam, !fileSets, let value = entry.value.scalar, let fallback = Self.selfDefault(of: entry.name, value),
        Self.isPlainWords(fallback)
      {
        // `{{.NAME | default "value"}}`: a value the command line, a caller or an includer may set.
        params.append(ImportedParam(name: entry.name, defaultValue: fallback))
      } else if let value = entry.value.scalar ?? (entry.value.isNull ? "" : nil) {
        context.knownValues[entry.name] = value.contains("{{") ? nil : value
        if mayBeParam, Self.isPlainWords(value) {
          params.append(ImportedParam(name: entry.name, defaultValue: value))
        } else {
          context.inlineVars[entry.name] = value
          spliced.append((entry.name, line))
        }
      } else if mayBeParam, let command = shellOf(entry.value), fileLevel,
        let readable = readingParams(command, context)
      {
        // The file's: run once per run, in the file's directory, as go-task runs it; a param
        // whose default a command prints (the command line may still set it). The file's params
        // before it are in its environment: `{{.A}}` reads `${A}`.
        params.append(ImportedParam(name: entry.name, defaultCommand: readable))
        report.approximate(
          "\(what): \(entry.name): {sh: …}", at: line,
          "a param with default: { sh: … }, run once when the file loads, with sh and runner's own environment "
            + "(go-task's interpreter is bash-like and reads the file's env)")
      } else if let command = shellOf(entry.value) {
        context.commandVars[entry.name] = command
        report.approximate(
          "\(what): \(entry.name): {sh: …}", at: line,
          (command.contains("{{") ? "its command reads templates" : "runner has no command-valued variables of a task")
            + ": each {{.\(entry.name)}} runs '\(command)' where it is used")
      } else if let structured = structured(entry.value, context) {
        // A list or a map: written in where it is used, as go-task prints it.
        context.structuredVars[entry.name] = structured
        if case .sequence(let values) = structured.kind, values.allSatisfy({ $0.scalar != nil }) {
          context.listVars[entry.name] = values.compactMap(\.scalar)
        }
      } else {
        report.notCarried("\(what): \(entry.name)", at: line, "only strings, lists, maps, ref: and sh: are imported")
      }
    }
    if let first = spliced.first {
      report.approximate(
        "\(what): \(spliced.map(\.name).joined(separator: ", "))", at: first.line,
        "values with shell syntax or templates are written where they are used, as go-task splices them: "
          + "the command line cannot set them")
    }
    return params
  }

  /// A command whose templates name only the file's params declared before it, with each
  /// `{{.NAME}}` as `${NAME}`; nil when it reads anything else.
  func readingParams(_ command: String, _ context: Context) -> String? {
    guard command.contains("{{") else { return command }
    var ignored = ImportReport(file: path)
    var fine = true
    let converted = convertTemplates(command, line: 0, shell: true, &ignored) { name, _, _ in
      guard context.fileParams[name] != nil else {
        fine = false
        return nil
      }
      return .expansion("${\(name)}")
    }
    return fine && ignored.entries.isEmpty ? converted : nil
  }

  /// Words a shell takes as they are: no quotes, expansions, globs or templates.
  static func isPlainWords(_ value: String) -> Bool {
    !value.contains { "'\"$`\\*?[]~{}()<>|&;#\n".contains($0) }
  }

  /// A list or map value (`map:` spelled out, or `ref: .NAME` of another such var); nil otherwise.
  func structured(_ node: YAMLNode, _ context: Context) -> YAMLNode? {
    switch node.kind {
    case .sequence: return node
    case .mapping(let entries):
      if entries.count == 1, entries[0].name == "map" { return entries[0].value }
      if entries.count == 1, entries[0].name == "ref" {
        let name = JustText.trimmed(entries[0].value.scalar ?? "")
        guard name.hasPrefix("."), Self.isName(name.dropFirst()) else { return nil }
        return context.structuredVars[String(name.dropFirst())]
      }
      return nil
    case .scalar: return nil
    }
  }

  func shellOf(_ node: YAMLNode) -> String? {
    guard case .mapping(let entries) = node.kind, entries.count == 1, entries[0].name == "sh" else { return nil }
    return entries[0].value.scalar
  }

  /// A mapping's string values (`{{.NAME}}` converted, null as empty); `other` is told of the
  /// rest.
  func strings(
    _ node: YAMLNode, _ context: Context, _ report: inout ImportReport, other: (YAMLEntry, inout ImportReport) -> Void
  ) -> [(name: String, value: String)] {
    guard case .mapping(let entries) = node.kind else { return [] }
    var result: [(name: String, value: String)] = []
    for entry in entries {
      if let value = entry.value.scalar ?? (entry.value.isNull ? "" : nil) {
        result.append((entry.name, convertValue(value, line: entry.key.location.line, context, &report)))
      } else {
        other(entry, &report)
      }
    }
    return result
  }

  /// go-task skips a dotenv file that does not exist: optional in runner.
  func dotenv(_ node: YAMLNode, _ report: inout ImportReport) -> [ImportedPath] {
    let items: [YAMLNode]
    if case .sequence(let list) = node.kind { items = list } else { items = [node] }
    return items.compactMap { item in
      guard let path = item.scalar else { return nil }
      if path.contains("{{") {
        report.notCarried("dotenv: \(path)", at: item.location.line, "a path with a template cannot be read as written")
        return nil
      }
      return ImportedPath(path, optional: true)
    }
  }
}
