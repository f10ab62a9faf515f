/// The task file's own settings: default targets, shell, environment, `.env` files.
extension MakefileTaskBuilder {
  /// The shell `SHELL` names (`bash`, `zsh`; nil for sh or none), with its line.
  func shellSetting() -> (name: String?, line: Int, value: String) {
    guard let shell = reader.shell else { return (nil, 0, "/bin/sh") }
    let program = MakeWords.file(MakeWords.split(shell.value).last ?? "")
    switch program {
    case "sh", "": return (nil, shell.line, shell.value)
    default: return (program, shell.line, shell.value)
    }
  }

  mutating func fileSettings(_ file: inout ImportedFile) {
    file.header = ["Imported from \(reader.path) (GNU make) by runner import."]
    defaultTargets(&file)
    shell(&file)
    shellFlags()
    settings()
    file.environment = environment()
    file.dotenv = reader.dotenv
  }

  /// `.DEFAULT_GOAL`, else the first target.
  mutating func defaultTargets(_ file: inout ImportedFile) {
    var goal = reader.firstGoal
    var named = false
    if let variable = expander.variables[".DEFAULT_GOAL"] {
      let value = MakeWords.trim(expander.value(variable.value, line: variable.line))
      if !value.isEmpty {
        goal = value
        named = true
      }
    }
    if !named, let (written, line) = reader.leftOutGoal {
      // `make` with no target would build a rule the import left out: so does nothing run instead.
      var name = "make-default-goal"
      while file.tasks.contains(where: { $0.name == name }) { name += "-" }
      var task = ImportedTask(name: name)
      task.description = "make's default goal, \(written), which the import could not carry"
      let message =
        "runner import: \(reader.path):\(line): not carried over: \(written): make's default goal; "
        + "name a target (runner TARGET)"
      task.commands = [.shell("echo \(Self.shellQuoted(message)) >&2; exit 1")]
      file.tasks.append(task)
      file.defaultTargets = [name]
      return
    }
    if let goal, let name = names[MakeWords.normalizedPath(goal)], name != "default" { file.defaultTargets = [name] }
  }

  /// `SHELL := /bin/bash` → `shell: bash`.
  mutating func shell(_ file: inout ImportedFile) {
    let setting = shellSetting()
    guard let name = setting.name else { return }
    switch name {
    case "bash", "zsh":
      file.shell = name
      let runs = name == "bash" ? "bash --noprofile --norc -eo pipefail -c" : "zsh --no-rcs -e -o pipefail -c"
      expander.approximate(
        "SHELL", at: setting.line, "`shell: \(name)`: runner runs `\(runs)`, make `\(setting.value) -c`")
    default:
      expander.notCarried(
        "SHELL", at: setting.line, "runner's shells are sh, bash and zsh: the commands run with sh")
    }
  }

  /// `.SHELLFLAGS`: exact when runner's shell runs with the same options.
  mutating func shellFlags() {
    guard let flags = reader.settings.shellFlags, !flags.value.isEmpty else { return }
    let shell = shellSetting().name ?? "sh"
    let runner: Set<String> = shell == "sh" ? ["e"] : ["e", "pipefail"]
    var make = Set<String>()
    var words = MakeWords.split(flags.value)[...]
    while let word = words.popFirst() {
      if word == "-o", let option = words.popFirst() {
        make.insert(option)
      } else if word.hasPrefix("-") {
        make.formUnion(word.dropFirst().map(String.init).filter { $0 != "c" })
      }
    }
    guard make != runner, flags.value != "-ec" || shell != "sh" else { return }
    let options = shell == "sh" ? "-e -c" : "-eo pipefail -c"
    expander.approximate(
      ".SHELLFLAGS", at: flags.line, "runner runs \(shell) with `\(options)`, make with `\(flags.value)`")
  }

  /// `.ONESHELL`, `.NOTPARALLEL`, `.DELETE_ON_ERROR` and lines of several commands.
  mutating func settings() {
    let flags = reader.settings.shellFlags?.value ?? "-c"
    let shell = shellSetting().name ?? "sh"
    if let line = reader.settings.oneShell, !flags.contains("e") {
      expander.approximate(
        ".ONESHELL", at: line,
        "each recipe is one script in runner too, run with `\(shell) -e`: a failing line stops it (make "
          + "looks at the last line's status only)")
    }
    if let line = reader.settings.notParallel {
      expander.approximate(
        ".NOTPARALLEL", at: line,
        "runner runs independent tasks at the same time: add `concurrency: 1` at the top of the task file to "
          + "run one at a time")
    }
    if let line = reader.settings.deleteOnError {
      expander.approximate(
        ".DELETE_ON_ERROR", at: line,
        "runner leaves a failed task's files in place; a failed task is never up to date, so the next run "
          + "makes them again")
    }
    if let line = converter.firstCompound {
      let how = shell == "bash" ? "`bash -eo pipefail -c`" : "`\(shell) -e -c`"
      expander.approximate(
        "several commands on one line", at: line,
        "runner runs each command with \(how) where make uses `\(shell) -c`: a command that fails before the "
          + "last\(shell == "bash" ? " (or a failing part of a pipeline)" : "") stops runner's line, not make's "
          + "(this line and every such line)")
    }
  }

  /// The exported variables (`export`, `.EXPORT_ALL_VARIABLES`), params aside: runner puts
  /// those in the environment already.
  mutating func environment() -> [(name: String, value: String)] {
    var names = reader.exported
    if reader.settings.exportAll {
      let defined = reader.definedAt.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map(\.key)
      let own: Set<String> = ["SHELL", "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "VPATH"]
      names += defined.filter { !names.contains($0) && !$0.hasPrefix(".") && !own.contains($0) }
    }
    let fromEnvironment = environmentVariables().filter { !names.contains($0) }
    names += fromEnvironment
    var environment: [(name: String, value: String)] = []
    for name in names where !expander.params.contains(name) {
      guard let variable = expander.variables[name], variable.origin != .automatic else { continue }
      guard !name.isEmpty, !name.contains("=") else { continue }
      expander.met = MakeExpander.Met()
      let pieces = expander.expandVariable(name, variable, mode: .recipe, line: variable.line)
      if let value = environmentValue(pieces) {
        environment.append((name, value))
        if fromEnvironment.contains(name) { reportEnvironmentVariable(name, value: value, line: variable.line) }
      } else {
        expander.notCarried(
          name, at: variable.line,
          "exported, but its value comes from $(shell …), and runner runs no command in `env` values: not in "
            + "the environment (the recipes that name $(\(name)) run the command themselves)")
      }
    }
    return environment
  }

  /// Variables found in every environment (or read from it by their own definition, as
  /// `PATH := tools:$(PATH)`) that the Makefile sets: make exports a variable that came from
  /// its environment, so the commands see the Makefile's value.
  static let environmentNames: Set<String> = [
    "PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_COLLATE", "USER", "LOGNAME",
    "TMPDIR", "TERM", "TZ", "GOPATH", "GOBIN", "GOFLAGS", "PYTHONPATH", "NODE_PATH", "LD_LIBRARY_PATH",
    "PKG_CONFIG_PATH", "MANPATH",
  ]

  /// The Makefile's variables that make passes to the commands because they came from its environment.
  mutating func environmentVariables() -> [String] {
    let defined = reader.definedAt.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map(\.key)
    var found: [String] = []
    for name in defined where !expander.params.contains(name) {
      guard let variable = expander.variables[name], variable.origin == .file else { continue }
      if Self.environmentNames.contains(name) {
        found.append(name)
        continue
      }
      var probe = expander
      probe.quiet = true
      let pieces = probe.expandVariable(name, variable, mode: .recipe, line: variable.line)
      let readsItself = pieces.contains {
        if case .variable(let read) = $0 { return read.name == name }
        return false
      }
      if readsItself { found.append(name) }
    }
    return found
  }

  /// The report entry for a variable of the environment that the Makefile sets.
  mutating func reportEnvironmentVariable(_ name: String, value: String, line: Int) {
    var notes: [String] = []
    if !["PATH", "HOME"].contains(name) {
      notes.append("make passes it on only when \(name) is in its environment; runner always sets it")
    }
    if value.contains("${PWD}") {
      notes.append("$(CURDIR) became ${PWD}, the directory runner was started in")
    }
    guard !notes.isEmpty else { return }
    expander.approximate(
      name, at: line,
      "set by the Makefile over the environment's value, which make passes to the commands: an `env` entry; "
        + notes.joined(separator: "; "))
  }

  /// An `env` value: text with `${` written `$${`, environment variables as `${NAME}`; nil
  /// when a command's output is part of it.
  func environmentValue(_ pieces: [MakePiece]) -> String? {
    var value = ""
    for piece in pieces {
      switch piece {
      case .text(let text), .glob(let text, _): value += text.replacing("${", with: "$${")
      case .variable(let variable): value += "${\(variable.name)}"
      case .param(let name): value += "${\(name)}"
      case .shell: return nil
      }
    }
    return value
  }
}
