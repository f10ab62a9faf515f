/// Settings, top-level variables and aliases.
extension JustfileConversion {
  // MARK: Settings

  /// One `set` line.
  mutating func apply(_ setting: JustSetting) {
    let line = setting.line
    switch (setting.name, setting.value) {
    case ("dotenv-load", .boolean(let on)):
      if on, file.dotenv.isEmpty { file.dotenv = [ImportedPath(".env", optional: true)] }
    case ("dotenv-filename", .list(let items)), ("dotenv-path", .list(let items)):
      let paths = items.compactMap(constant)
      guard paths.count == items.count, !paths.isEmpty else {
        report.notCarried(setting.source, at: line, "the paths must be plain text in runner")
        return
      }
      // Later files win over earlier ones in both tools.
      file.dotenv = paths.map { ImportedPath($0, optional: true) }
      report.approximate(
        setting.source, at: line,
        "runner loads the ones there, each optional; just \(setting.name == "dotenv-path" ? "then looks for .env in the directories above when none is there" : "looks in the directories above too, and stops at the first that holds one")"
      )
    case ("dotenv-filename", .expression(let expression)), ("dotenv-path", .expression(let expression)):
      guard let path = constant(expression) else {
        report.notCarried(setting.source, at: line, "the path must be plain text in runner")
        return
      }
      file.dotenv = [ImportedPath(path, optional: setting.name == "dotenv-filename")]
    case ("dotenv-required", .boolean(let on)):
      if on {
        if file.dotenv.isEmpty { file.dotenv = [ImportedPath(".env")] }
        file.dotenv = file.dotenv.map { ImportedPath($0.path) }
      }
    case ("dotenv-override", .boolean(let on)):
      settings.dotenvOverride = on
    case ("shell", .list(let items)):
      applyShell(items, setting)
    case ("positional-arguments", .boolean(let on)): settings.positionalArguments = on
    case ("lists", .boolean(let on)): settings.lists = on
    case ("allow-duplicate-recipes", .boolean(let on)): settings.allowDuplicateRecipes = on
    case ("allow-duplicate-variables", .boolean(let on)): settings.allowDuplicateVariables = on
    case ("guards", .boolean(let on)): settings.guards = on
    case ("default-script", .boolean(let on)): settings.defaultScript = on
    case ("no-cd", .boolean(let on)): settings.noCd = on
    case ("export", .boolean(let on)): settings.export = on
    case ("script-interpreter", .list(let items)):
      let words = items.compactMap(constant)
      if words.count == items.count, !words.isEmpty { settings.scriptInterpreter = words }
    case ("working-directory", .expression(let expression)):
      guard let directory = directoryTemplate(expression) else {
        report.notCarried(setting.source, at: line, "the directory must be plain text in runner")
        return
      }
      settings.workingDirectory = directory
    case ("ignore-comments", let value):
      if case .boolean(let on) = value { settings.ignoreComments = on }
    case ("quiet", _), ("unstable", _), ("lazy", _), ("no-exit-message", _),
      ("minimum-version", _), ("indentation", _):
      // Nothing to carry: runner echoes no commands, a comment line
      // does nothing in the shell, and runner hands scripts to the shell with -c.
      break
    case ("tempdir", _):
      report.approximate(
        setting.source, at: line,
        "runner hands scripts to their interpreter with -c or on stdin: no script file is written there")
    case ("windows-shell", _), ("windows-powershell", _):
      report.notCarried(setting.source, at: line, "it applies on Windows only; runner runs tasks with sh or bash")
    case ("fallback", _):
      report.notCarried(
        setting.source, at: line,
        "runner finds tasks.yml in the nearest directory above, but does not fall back to a parent's file for "
          + "a task it lacks: name that file with -f")
    case ("default-list", _):
      report.notCarried(setting.source, at: line, "runner without a target runs 'default:'; list the tasks with --list")
    case ("dotenv-command", .expression(let expression)):
      guard let command = constant(expression) else {
        report.notCarried(setting.source, at: line, "the command must be plain text in runner")
        return
      }
      settings.dotenvCommands = [command]
    case ("dotenv-command", .list(let items)):
      let commands = items.compactMap(constant)
      guard commands.count == items.count else {
        report.notCarried(setting.source, at: line, "the commands must be plain text in runner")
        return
      }
      settings.dotenvCommands = commands
    default:
      report.notCarried(setting.source, at: line, "just's setting '\(setting.name)' has no equivalent in runner")
    }
  }

  /// `dotenv-command` replaces the `.env` files (just reads no file then), each `{ sh: CMD }`;
  /// `dotenv-override` loads `.env` too and marks each entry `override: true`.
  mutating func finishDotenv() {
    if !settings.dotenvCommands.isEmpty {
      file.dotenv = settings.dotenvCommands.map { ImportedPath(command: $0) }
    } else if settings.dotenvOverride, file.dotenv.isEmpty {
      file.dotenv = [ImportedPath(".env", optional: true)]
    }
    if settings.dotenvOverride {
      for index in file.dotenv.indices { file.dotenv[index].overrides = true }
    }
  }

  /// `set shell := ["bash", "-uc"]`: the same argv (runner hands the script to it as the last
  /// word, as just does); a program that is not sh, bash or zsh is reported (the import writes
  /// shell syntax).
  mutating func applyShell(_ items: [JustExpression], _ setting: JustSetting) {
    let words = items.compactMap(constant)
    guard words.count == items.count, !words.isEmpty else {
      report.notCarried(setting.source, at: setting.line, "the shell must be plain text")
      return
    }
    guard let program = Self.withoutEnv(words).first else { return }
    let name = String(program.split(separator: "/").last ?? "")
    guard ["sh", "bash", "zsh", "dash"].contains(name) else {
      report.notCarried(
        setting.source, at: setting.line,
        "runner import writes shell syntax for sh, bash or zsh: the tasks run with sh -cu")
      return
    }
    if name != "sh", name != "dash" { file.shell = name }
    file.shellArguments = words
  }

  // MARK: Variables

  /// Top-level variables, in an order where each comes after those it reads.
  mutating func convertVariables() {
    var chosen: [String: JustAssignment] = [:]
    var order: [String] = []
    for assignment in justfile.assignments {
      if chosen[assignment.name] == nil {
        order.append(assignment.name)
      } else if !settings.allowDuplicateVariables {
        report.approximate(
          assignment.source, at: assignment.line,
          "just refuses a variable defined twice (without allow-duplicate-variables): the last value is kept")
      }
      chosen[assignment.name] = assignment
    }
    var done: Set<String> = []
    func visit(_ name: String, _ conversion: inout JustfileConversion) {
      guard let assignment = chosen[name], done.insert(name).inserted else { return }
      for reference in Self.references(assignment.expression) { visit(reference, &conversion) }
      conversion.convert(assignment)
    }
    for name in order { visit(name, &self) }
  }

  /// Whether the file says `set lazy`.
  var lazy: Bool {
    justfile.settings.contains { setting in
      if setting.name == "lazy", case .boolean(true) = setting.value { return true }
      return false
    }
  }

  /// One variable. An exported one (`export`, `set export`) goes into `env` when runner can
  /// express its value there; any other is spliced as text where it is used, as just does (the
  /// shell then reads the quotes, `$`, globs … in it), and is not in the commands' environment.
  mutating func convert(_ assignment: JustAssignment) {
    let name = Self.variableName(assignment.name)
    let line = assignment.line
    let exported = assignment.isExported || settings.export
    var notes: [String] = []
    if case .backtick = assignment.expression, lazy, !exported, !readAnywhere.contains(assignment.name) {
      // `set lazy`: just never runs a variable nothing reads.
      report.approximate(assignment.source, at: line, "read nowhere: left out, as just (set lazy) never runs it")
      return
    }
    if case .backtick(let command) = assignment.expression {
      // Run once, when the file loads, as just runs it: a param whose default the command
      // prints (`default: { sh: … }`), in every task's environment.
      // just runs it in the working directory the file sets.
      // The directory may read a param, so the params are unset only once there.
      let hidden = isolated(command, from: file.params.map(\.name))
      let located =
        workingDirectory().map { directory in
          Self.changingDirectory(to: directory) + (hidden == command ? command : "{ " + hidden + "\n}")
        } ?? hidden
      file.params.append(ImportedParam(name: name, defaultCommand: located))
      if exported { exportedParams.insert(name) }
      bindings[assignment.name] = .param(name)
      report.approximate(
        assignment.source, at: line,
        "a param with default: { sh: … }, run once when the file loads, with sh and runner's own environment "
          + "(just runs it with its shell and the exported variables)")
      if name != assignment.name {
        report.approximate(
          assignment.name, at: line,
          "renamed \(name): a shell variable name cannot hold '-' (each use reads ${\(name)})")
      }
      return
    }
    let pieces: [JustPiece]
    do throws(JustValueProblem) {
      pieces = try self.pieces(assignment.expression, JustScope(), &notes)
    } catch {
      bindings[assignment.name] = .missing(name)
      report.notCarried(assignment.source, at: line, error.reason + " (left out: uses read ${\(name)})")
      return
    }
    for reference in Self.references(assignment.expression) {
      guard case .missing(let variable) = bindings[reference] else { continue }
      notes.append("it reads \(reference), which is left out: ${\(variable)} is empty unless the environment sets it")
    }
    var ignored: [String] = []
    let emptyList = settings.lists && (try? evaluate(assignment.expression, JustScope(), &ignored)) == .known([])
    // Plain words read only by recipe lines: a file param, so `runner NAME=VALUE` sets it as
    // `just NAME=VALUE` does (each use reads ${NAME}, the same words to the shell).
    // A param is in the commands' environment too, where just leaves the variable out: only a
    // lower-case name nothing reads from the environment (tools read CC, GOOS, …), and said.
    if !exported, name == assignment.name, case .literal(let text) = assignment.expression, Self.isPlainWords(text),
      notes.isEmpty, !name.contains(where: \.isUppercase), !name.hasSuffix("_proxy"),
      !readOutsideLines.contains(assignment.name), !file.params.contains(where: { $0.name == name })
    {
      file.params.append(ImportedParam(name: name, defaultValue: text))
      bindings[assignment.name] = .param(name)
      if !reportedParams {
        reportedParams = true
        report.approximate(
          assignment.source, at: line,
          "a param, so runner \(name)=VALUE sets it as just does; runner puts such params (each lower-case variable of "
            + "plain words that only recipe lines read) in the commands' environment too, where just leaves them out")
      }
      return
    }
    // An exported `[]` leaves the variable unset, as in just.
    guard exported, !emptyList else {
      bindings[assignment.name] = .inline(assignment.expression)
      for note in notes { report.approximate(assignment.source, at: line, note) }
      if !reportedOverrides {
        reportedOverrides = true
        report.approximate(
          assignment.source, at: line,
          "just NAME=VALUE sets a variable from the command line; its value is written in where it is used, so "
            + "runner NAME=VALUE is refused as an unknown param (one entry for every such variable of the file)")
      }
      return
    }
    if name != assignment.name {
      report.approximate(
        assignment.name, at: line, "renamed \(name): a shell variable name cannot hold '-' (each use reads ${\(name)})")
    }
    do throws(JustValueProblem) {
      let value = try Self.environmentText(pieces, &notes)
      file.environment.append((name, value))
      bindings[assignment.name] = .environment(name)
      if let text = Self.plainText(pieces), notes.isEmpty { constants[assignment.name] = text }
    } catch {
      // Only the shell can write it (an environment read with a default): spliced where it is used.
      bindings[assignment.name] = .inline(assignment.expression)
      let shell = (try? Self.shellText(pieces, .double)) ?? ""
      let reason = shell.contains("${PWD}") ? "" : "runner's env values cannot fall back to a default: "
      notes = [
        reason + "each {{\(assignment.name)}} becomes \(shell) where it is used, and it is not exported to the commands"
      ]
    }
    for note in notes { report.approximate(assignment.source, at: line, note) }
  }

  // MARK: Aliases

  /// `alias b := build` → a task `b` that depends on `build`, passing its params on.
  mutating func convert(_ alias: JustAlias) {
    // An alias of a module is the module included again (`includeModules`).
    if justfile.modules.contains(where: { $0.name == alias.target }) { return }
    // `[windows] alias f := w`: an alias for another system is left out (runner runs on Linux).
    let systems = alias.attributes.map(\.name).filter(JustfileChecks.platforms.contains)
    if !systems.isEmpty, !systems.contains("linux"), !systems.contains("unix") {
      report.approximate(alias.source, at: alias.line, "an alias for \(systems.joined(separator: ", ")) only: left out")
      return
    }
    if alias.target.contains("::") {
      // runner's aliases name tasks of their own file: a task that runs the module's.
      guard let task = moduleTask(alias.target), !file.tasks.contains(where: { $0.name == alias.name }) else {
        report.notCarried(alias.source, at: alias.line, "it names a recipe of a module this file does not declare")
        return
      }
      var wrapper = ImportedTask(name: alias.name)
      wrapper.dependencies = [ImportedDependency(task)]
      file.tasks.append(wrapper)
      report.approximate(
        alias.source, at: alias.line,
        "a task that depends on \(task) (runner's aliases name tasks of their own file); arguments do not pass")
      return
    }
    guard let target = recipes[alias.target] else {
      report.notCarried(alias.source, at: alias.line, "there is no recipe '\(alias.target)'")
      return
    }
    guard !file.tasks.contains(where: { $0.name == alias.name }) else {
      report.notCarried(alias.source, at: alias.line, "a task named '\(alias.name)' exists already")
      return
    }
    guard let index = file.tasks.firstIndex(where: { $0.name == alias.target }) else {
      report.notCarried(alias.source, at: alias.line, "there is no task '\(alias.target)'")
      return
    }
    _ = target
    file.tasks[index].aliases.append(alias.name)
    if alias.attributes.contains(where: { $0.name == "private" }) || alias.name.hasPrefix("_") {
      report.approximate(alias.source, at: alias.line, "a private alias: runner's --list shows every alias")
    }
  }
}
