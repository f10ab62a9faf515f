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
    if let variable = expander.variables[".DEFAULT_GOAL"] {
      let value = MakeWords.trim(expander.value(variable.value, line: variable.line))
      if !value.isEmpty { goal = value }
    }
    if let goal, let name = names[MakeWords.normalizedPath(goal)] { file.defaultTargets = [name] }
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
    var environment: [(name: String, value: String)] = []
    for name in names where !expander.params.contains(name) {
      guard let variable = expander.variables[name], variable.origin != .automatic else { continue }
      guard !name.isEmpty, !name.contains("=") else { continue }
      expander.met = MakeExpander.Met()
      let pieces = expander.expandVariable(name, variable, mode: .recipe, line: variable.line)
      if let value = environmentValue(pieces) {
        environment.append((name, value))
      } else {
        expander.notCarried(
          name, at: variable.line,
          "exported, but its value comes from $(shell …), and runner runs no command in `env` values: not in "
            + "the environment (the recipes that name $(\(name)) run the command themselves)")
      }
    }
    return environment
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
