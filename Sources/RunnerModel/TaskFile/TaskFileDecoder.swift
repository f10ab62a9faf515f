/// Turns the YAML tree of a task file into a `TaskFile`, checking the schema (format version 1).
///
/// The tasks come first, streamed by the parser one at a time (`take(_:)`) as each is parsed,
/// so that a large file's tree is never held whole; `decode(_:)` then reads the rest of the
/// file from what the parser kept.
struct TaskFileDecoder: YAMLEntrySink {
  static let fileKeys = [
    "version", "concurrency", "fail_fast", "default", "env", "key_env", "secrets", "shell", "params", "dotenv",
    "includes", "sources",
    "remote", "tasks",
  ]
  static let taskKeys = [
    "desc", "deps", "run", "image", "env", "key_env", "secrets", "dir", "priority", "timeout", "retries", "sources",
    "outputs", "wait_for", "resources", "shell", "internal", "always", "service", "interactive", "params", "dotenv",
    "matrix", "if", "preconditions", "aliases", "prompt", "depfile", "sandbox", "jobserver",
  ]
  static let maximumNameLength = 200

  var reader = SchemaReader()
  let path: String
  let directory: String
  /// Tasks the parser handed over, decoded.
  var streamed: [TaskDefinition] = []
  /// `streamed` by name: the parser's check for a key written twice asks it (`place(of:)`),
  /// 8 bytes a task where a set of the keys cost 34.
  var streamedNames = NameIndex()
  /// The tasks that write `sources` (a file's `sources: auto` leaves them as they are).
  var writeSources = Set<String>()
  /// The file's `sources: auto`.
  var tracesEveryTask = false
  /// Where keys that are not valid task names were written (they are not in `streamed`).
  var rejectedNames: [String: SourceLocation] = [:]
  /// Every task's `deps` and `run`, packed into shared chunks: no array header a task.
  var dependencyPacker = PackedList<Dependency>.Packer()
  var commandPacker = PackedList<Command>.Packer()

  /// The files globs match in a directory (`for: { files: }`); nil where loading has no file system.
  var matchFiles: (@Sendable (_ patterns: [String], _ directory: String) -> [String])?
  /// Runs a `for: { sh: CMD }` command in a directory: its exit status and stdout.
  var commandOutput: @Sendable (_ command: String, _ directory: String) -> (status: Int32, output: String) =
    LoadTimeShell.shell
  /// The directory of the task being decoded, for a `for:` found when the file loads; nil when
  /// its `dir` holds `${{`.
  var taskDirectory: String?
  /// Why the task being decoded could not find its `for:` values (it fails when it runs).
  var foundFailures: [String] = []

  init(path: String, directory: String) {
    self.path = path
    self.directory = directory
  }

  /// - Throws: `DiagnosticList` with every schema error found.
  ///
  /// The tree is consumed: each task's nodes are released as soon as the task is decoded, so
  /// a large file's tree and its tasks are not held whole at once.
  mutating func decode(_ root: consuming YAMLNode) throws(DiagnosticList) -> TaskFile {
    var file = TaskFile(path: path, directory: directory)
    // The streamed tasks' errors, put back where `tasks` is written.
    var streamedDiagnostics: [Diagnostic] = []
    swap(&streamedDiagnostics, &reader.diagnostics)
    let rootLocation = root.location
    guard
      var entries = reader.mapping(
        root, what: "the task file", allowed: Self.fileKeys, place: "the task file", equivalents: Self.fileEquivalents)
    else { throw DiagnosticList(reader.diagnostics) }
    _ = consume root
    var sawTasks = false
    // `tasks: {}` written out: a file with no tasks yet on purpose (an empty module).
    var emptyOnPurpose = false
    for position in entries.indices {
      if entries[position].name == "tasks" {
        sawTasks = true
        if case .mapping(let written) = entries[position].value.kind, written.isEmpty { emptyOnPurpose = true }
        // In file order: the streamed tasks' errors stand where `tasks` is written.
        reader.diagnostics += streamedDiagnostics
        file.tasks = tasks(taking: &entries[position].value)
        file.names = takenNames()
        continue
      }
      let entry = entries[position]
      let value = entry.value
      switch entry.name {
      case "version":
        if value.scalar != "1" {
          let goTask = value.scalar.map { $0.hasPrefix("2") || $0.hasPrefix("3") } ?? false
          let origin = goTask ? " (go-task's Taskfile version: runner's own format is 1)" : ""
          reader.fail(
            .invalidValue(
              what: "'version'",
              reason: "must be 1 (the only format version so far), found \(value.quotedOrKind)\(origin)"),
            at: value)
        }
      case "concurrency":
        if value.scalar != "auto" {
          file.concurrency = reader.integer(value, what: "'concurrency' (a number or \"auto\")", range: 1...100_000)
        }
      case "fail_fast":
        file.failFast = reader.boolean(value, what: "'fail_fast'") ?? true
      case "default":
        file.defaultTargets = (reader.strings(value, what: "'default'", expected: "a list of task names") ?? [])
          .map { Dependency(name: $0.0, location: $0.1) }
      case "env":
        file.environment = environment(value, what: "'env' of the task file", task: nil)
      case "key_env":
        file.keyEnvironment = variableNames(value, what: "'key_env' of the task file")
      case "secrets":
        file.secretNames = variableNames(value, what: "'secrets' of the task file")
      case "shell":
        file.shell = shell(value, what: "'shell' of the task file")
      case "params":
        file.params = params(value, what: "'params' of the task file")
      case "dotenv":
        file.dotenv = dotenv(value, what: "'dotenv' of the task file")
      case "includes":
        file.includes = includes(value)
      case "remote":
        file.remote = remote(value)
      case "sources":
        if case .scalar("auto", plain: true) = value.kind {
          tracesEveryTask = true
        } else {
          reader.fail(
            .invalidValue(
              what: "'sources' of the task file", reason: "takes only auto (every task's sources: auto)"),
            at: value)
        }
      default:
        break
      }
    }
    if tracesEveryTask {
      // Every task that runs commands of its own and names no sources or depfile of its own.
      for index in file.tasks.indices {
        let task = file.tasks[index]
        guard case .shell(let commands) = task.action, !commands.contains(where: { $0.call != nil }),
          !writeSources.contains(task.name), task.depfile == nil, !task.sandboxStrict, !task.isService,
          !task.isInteractive
        else { continue }
        file.tasks[index].sourcesAuto = true
      }
    }
    if let shell = file.shell {
      for index in file.tasks.indices where file.tasks[index].shell == nil { file.tasks[index].shell = shell }
    }
    // A file of includes alone (a monorepo's top) has tasks, theirs.
    if reader.diagnostics.isEmpty, !sawTasks || file.tasks.isEmpty, file.includes.isEmpty, !emptyOnPurpose {
      reader.fail(.noTasks, at: rootLocation)
    }
    guard reader.diagnostics.isEmpty else { throw DiagnosticList(reader.diagnostics) }
    return file
  }

  mutating func decodeTask(_ task: inout TaskDefinition, _ node: YAMLNode) {
    let name = task.name
    switch node.kind {
    case .scalar where node.isNull:
      return
    case .scalar(let text, _):
      task.action = .shell(commandPacker.pack(CollectionOfOne(Command(text: text, location: node.location))))
      rejectExpression(text, task: name, key: "run", at: node)
      return
    case .sequence:
      reader.fail(.bareListTask(name), at: node)
      return
    case .mapping:
      break
    }
    guard
      let entries = reader.mapping(
        node, what: "task '\(name)'", allowed: Self.taskKeys, place: "task '\(name)'", equivalents: Self.taskEquivalents
      )
    else { return }
    var run: YAMLNode?
    var image: YAMLNode?
    if entries.contains(where: { $0.name == "sources" }) { writeSources.insert(name) }
    taskDirectory = directory
    if let dir = entries.first(where: { $0.name == "dir" })?.value.scalar {
      taskDirectory = dir.contains("${{") ? nil : dir.hasPrefix("/") ? dir : directory + "/" + dir
    }
    for entry in entries {
      let value = entry.value
      // Built only for an error message: every task's every key passes here.
      let what = { "'\(entry.name)' of task '\(name)'" }
      switch entry.name {
      case "desc": task.description = reader.string(value, what: what())
      case "deps":
        let edges = dependencies(value, what: what(), task: &task)
        task.dependencies = dependencyPacker.pack(edges)
      case "run": run = value
      case "image": image = value
      case "env": task.environment = environment(value, what: what(), task: name)
      case "key_env": task.keyEnvironment = variableNames(value, what: what())
      case "secrets": task.secretNames = variableNames(value, what: what())
      case "dir":
        task.directory = reader.string(value, what: what())
        if let dir = task.directory { checkLoadTimeExpression(dir, task: name, key: "dir", at: value.location) }
      case "priority": task.priority = priority(value, what: what())
      case "timeout":
        let limit = reader.timeLimit(value, what: what())
        task.timeout = limit == .zero ? nil : limit
      case "retries": task.retries = reader.integer(value, what: what(), range: 0...100) ?? 0
      case "sources"
      where value.scalar == "auto" && { if case .scalar(_, true) = value.kind { true } else { false } }():
        task.sourcesAuto = true
      case "sources":
        let items = reader.strings(value, what: what(), expected: "a list of paths or globs") ?? []
        for (text, location) in items { checkLoadTimeExpression(text, task: name, key: "sources", at: location) }
        task.sources = items.map(\.0)
      case "outputs":
        let items = reader.strings(value, what: what(), expected: "a list of paths") ?? []
        for (text, location) in items { checkLoadTimeExpression(text, task: name, key: "outputs", at: location) }
        task.outputs = items.map(\.0)
      case "depfile":
        task.depfile = reader.string(value, what: what())
        if let path = task.depfile {
          checkLoadTimeExpression(path, task: name, key: "depfile", at: value.location)
          if path.isEmpty {
            reader.fail(.invalidValue(what: what(), reason: "is empty: name the file the command writes"), at: value)
          }
        }
      case "sandbox":
        if value.scalar == "strict" {
          task.sandboxStrict = true
        } else {
          reader.fail(.invalidValue(what: what(), reason: "takes only strict"), at: value)
        }
      case "wait_for": task.waitFor = gates(value, what: what())
      case "resources":
        task.resources = reader.strings(value, what: what(), expected: "a list of names")?.map(\.0) ?? []
      case "shell": task.shell = shell(value, what: what())
      case "internal": task.isInternal = reader.boolean(value, what: what()) ?? false
      case "always": task.always = reader.boolean(value, what: what()) ?? false
      case "service": task.isService = reader.boolean(value, what: what()) ?? false
      case "interactive": task.isInteractive = reader.boolean(value, what: what()) ?? false
      case "jobserver": task.jobserver = jobserver(value, what: what()) ?? .automatic
      case "params": task.params = params(value, what: what())
      case "dotenv": task.dotenv = dotenv(value, what: what())
      case "matrix": task.matrix = matrix(value, what: what())
      case "if": task.condition = condition(value, what: what())
      case "preconditions": task.preconditions = preconditions(value, what: what())
      case "prompt": task.prompt = reader.string(value, what: what())
      case "aliases":
        let items = reader.strings(value, what: what(), expected: "a list of names") ?? []
        for (alias, location) in items where !Self.isValidAlias(alias) {
          reader.fail(
            .invalidValue(what: "alias '\(alias)' of task '\(name)'", reason: "is not a valid task name"),
            at: location)
        }
        task.aliases = items.map(\.0).filter(Self.isValidAlias)
      default: break
      }
    }
    defer { failForFoundValues(&task, at: node) }
    if run != nil, image != nil, let image {
      reader.fail(.runAndImage(name), at: image)
    } else if let run {
      let commands = commands(run, task: &task)
      // A `for:` that found nothing may leave no command: nothing to run, as a group.
      task.action = commands.isEmpty && task.repeatsAtLoad ? .group : .shell(commandPacker.pack(commands))
    } else if let image {
      var steps = ImageStepDecoder(reader: reader)
      task.action = .image(steps.steps(image, task: name))
      reader = steps.reader
    }
    if task.isInteractive, run == nil || task.isService, let entry = entries.first(where: { $0.name == "interactive" })
    {
      reader.fail(
        .invalidValue(what: "'interactive' of task '\(name)'", reason: "needs 'run', and cannot go with 'service'"),
        at: entry.value)
    }
    checkJobserver(task, run: run, entries: entries)
    // What a run reads is recorded by the whole task, from its one command list.
    if task.sandboxStrict, task.sourcesAuto, let entry = entries.first(where: { $0.name == "sandbox" }) {
      reader.fail(
        .invalidValue(
          what: "'sandbox: strict' of task '\(name)'",
          reason: "cannot go with 'sources: auto': a strict task reads only the sources it names"),
        at: entry.value)
    }
    for key in ["depfile", "sources", "sandbox"]
    where key == "depfile" ? task.depfile != nil : key == "sources" ? task.sourcesAuto : task.sandboxStrict {
      guard let entry = entries.first(where: { $0.name == key }) else { continue }
      let calls: Bool
      if case .shell(let commands) = task.action { calls = commands.contains { $0.call != nil } } else { calls = false }
      if run == nil || task.isService || task.isInteractive || calls {
        let what = key == "depfile" ? "'depfile'" : key == "sources" ? "'sources: auto'" : "'sandbox: strict'"
        reader.fail(
          .invalidValue(
            what: "\(what) of task '\(name)'",
            reason: "needs 'run' with no task calls, and cannot go with 'service' or 'interactive'"),
          at: entry.value)
      }
    }
    if task.isService, let entry = entries.first(where: { $0.name == "service" }) {
      if run == nil {
        reader.fail(
          .invalidValue(what: "'service' of task '\(name)'", reason: "needs 'run': a service is a command"),
          at: entry.value)
      } else if task.always || task.retries > 0 || task.condition != nil || task.timeout != nil {
        reader.fail(
          .invalidValue(
            what: "'service' of task '\(name)'", reason: "cannot go with 'always', 'retries', 'if' or 'timeout'"),
          at: entry.value)
      }
    }
  }

  /// `key_env`, `secrets`: a list of environment variable names.
  mutating func variableNames(_ node: YAMLNode, what: @autoclosure () -> String) -> [String] {
    guard let items = reader.strings(node, what: what(), expected: "a list of environment variable names") else {
      return []
    }
    var names: [String] = []
    for (name, location) in items {
      if name.isEmpty || name.contains("=") || name.contains("\0") {
        reader.fail(.invalidValue(what: "environment variable name '\(name)'", reason: "is not valid"), at: location)
      } else if !names.contains(name) {
        names.append(name)
      }
    }
    return names
  }

  mutating func environment(_ node: YAMLNode, what: @autoclosure () -> String, task: String?) -> [EnvironmentEntry] {
    if node.isNull { return [] }
    guard let entries = reader.mapping(node, what: what()) else { return [] }
    var result: [EnvironmentEntry] = []
    for entry in entries {
      // `A: ~` or `A:` sets an empty value, as in GitHub Actions; `A: null` unsets A.
      guard case .scalar(let written, let plain) = entry.value.kind else {
        reader.wrongType("'\(entry.name)' in \(what())", expected: "a string", entry.value)
        continue
      }
      let text = entry.value.isNull ? "" : written
      let unset = plain && ["null", "Null", "NULL"].contains(written)
      if entry.name.isEmpty || entry.name.contains("=") || entry.name.contains("\0") {
        reader.fail(
          .invalidValue(what: "environment variable name '\(entry.name)'", reason: "is not valid"), at: entry.key)
        continue
      }
      do {
        let template = try Template.parse(text, variables: true)
        if task == nil, !template.references.isEmpty {
          reader.fail(.malformedExpression(text, reason: "the file's 'env' cannot read task outputs"), at: entry.value)
        }
        result.append(
          EnvironmentEntry(
            name: entry.name, value: template, location: entry.value.location, origin: unset ? .unset : .env))
      } catch {
        reader.fail(error, at: entry.value)
      }
    }
    return result
  }

  /// `shell: bash` (or `sh`, `zsh`), or an argv list whose last flag takes the script (`[bash, -eo, pipefail, -c]`).
  mutating func shell(_ node: YAMLNode, what: @autoclosure () -> String) -> [String]? {
    if case .sequence = node.kind {
      guard let items = reader.strings(node, what: what(), expected: "a shell name or an argv list"), !items.isEmpty
      else { return nil }
      return items.map(\.0)
    }
    guard let name = reader.string(node, what: what()) else { return nil }
    guard let argv = ShellSetting.named(name) else {
      reader.fail(
        .invalidValue(
          what: what(), reason: "names '\(name)': write bash, sh or zsh, or an argv list such as [\(name), -c]"),
        at: node)
      return nil
    }
    return argv
  }

  mutating func priority(_ node: YAMLNode, what: @autoclosure () -> String) -> Int {
    switch node.scalar {
    case "high": return 100
    case "normal": return 0
    case "low": return -100
    default:
      guard let text = node.scalar, let value = Int(text), (-1000...1000).contains(value) else {
        reader.fail(
          .wrongType(
            what: what(), expected: "high, normal, low or a whole number from -1000 to 1000", found: node.quotedOrKind),
          at: node)
        return 0
      }
      return value
    }
  }

  /// `dir`, `sources` and `outputs` may read params and matrix values (known when the file is
  /// loaded), never dependencies' outputs.
  mutating func checkLoadTimeExpression(_ text: String, task: String, key: String, at location: SourceLocation) {
    guard Template.containsExpression(text) else { return }
    do {
      if !(try Template.parse(text)).references.isEmpty {
        reader.fail(
          .malformedExpression(
            text, reason: "'\(key)' is known before the run: it may read params and matrix values, not outputs"),
          at: location)
      }
    } catch {
      reader.fail(error, at: location)
    }
  }

  mutating func rejectExpression(_ text: String, task: String, key: String, at node: YAMLNode) {
    if Template.containsExpression(text) { reader.fail(.expressionOutsideEnv(task: task, key: key), at: node) }
  }
}
