/// A recipe's parameters and dependencies.
extension JustfileConversion {
  /// The recipe's parameters as params; the variadic one is runner's arguments.
  mutating func params(of recipe: JustRecipe, _ scope: inout JustScope) -> [ImportedParam] {
    var params: [ImportedParam] = []
    let names = paramNames(of: recipe)
    for parameter in recipe.parameters {
      if parameter.variadic != nil {
        scope.variadic = parameter.name
        var reason = "runner's arguments are the words after `--`: runner \(recipe.name) -- a b"
        if parameter.variadic == "+" { reason += " (that at least one is given is not checked)" }
        if let value = parameter.defaultValue {
          var ignored: [String] = []
          if case .known(let words) = try? evaluate(value, JustScope(), &ignored),
            Self.isPlainWords(words.joined(separator: " "))
          {
            // Without words after `--`, the default's words (just splices the text, which the
            // shell splits): each command starts by setting them.
            scope.variadicDefault = words.joined(separator: " ").split(whereSeparator: \.isWhitespace).map(String.init)
          } else {
            reason += " (the default \(value.source) is not used)"
          }
        }
        if parameter.isExported || settings.export, !JustText.isVariableName(parameter.name) {
          reason += " ($\(parameter.name) is not set: read \"$@\")"
        }
        report.approximate(parameter.source, at: recipe.line, reason)
        continue
      }
      let name = names[parameter.name] ?? parameter.name
      if !parameter.isExported, !settings.export, Self.readsShellVariable(name, in: recipe.body) {
        report.approximate(
          parameter.source, at: recipe.line,
          "runner passes params through the environment: the commands see $\(name), which just leaves unset "
            + "(it exports only $-parameters)")
      }
      if name != parameter.name {
        let reason =
          Self.variableName(parameter.name) == parameter.name
          ? "runner puts a task's params in its environment, and programs read $\(parameter.name) from theirs "
            + "(just does not export it)"
          : "a param name cannot hold '-'"
        report.approximate(
          parameter.source, at: recipe.line,
          "renamed \(name): \(reason) (runner \(recipe.name) \(name)=…; {{\(parameter.name)}} reads ${\(name)})")
      }
      // `[arg(NAME, long, flag)]`: given, `true`; left out, empty (no value needed).
      let isFlag = (JustfileChecks.argOptions(recipe)[parameter.name] ?? []).contains("flag")
      var param = ImportedParam(name: name, required: parameter.defaultValue == nil && !isFlag)
      if isFlag, parameter.defaultValue == nil { param.defaultValue = "" }
      if let value = parameter.defaultValue {
        var ignored: [String] = []
        if settings.lists, parameter.isExported || settings.export,
          case .known([]) = try? evaluate(value, JustScope(), &ignored)
        {
          report.approximate(
            parameter.source, at: recipe.line,
            "runner puts the param in the environment, empty; just leaves $\(parameter.name) unset for []")
        }
        if let text = constant(value, recipeName: recipe.name) {
          param.defaultValue = text
          if !Self.isPlainWords(text) {
            report.approximate(
              parameter.source, at: recipe.line,
              "a value holding shell syntax is passed as words, not re-parsed: just splices the text of "
                + "{{\(parameter.name)}} into the command, where the shell reads its quotes, $, globs …; "
                + "${\(name)} is not read again")
          }
        } else if let text = defaultReadingParams(value, scope) {
          // `b=a`: runner fills in the params declared before it, as just does.
          param.defaultValue = text
          if !Self.isPlainWords(text.replacing("${{ params.", with: "").replacing(" }}", with: "")) {
            report.approximate(
              parameter.source, at: recipe.line,
              "a value holding shell syntax is passed as words, not re-parsed: just splices the text into the "
                + "command, where the shell reads its quotes, $, globs …")
          }
        } else if let command = defaultCommand(value, recipe) {
          // A default the shell computes: a command whose output is the value.
          param.defaultCommand = isolated(command, from: file.params.map(\.name) + params.map(\.name))
          report.approximate(
            parameter.source, at: recipe.line,
            "a param with default: { sh: … }, run once per run in the file's directory when nothing sets it "
              + "(just runs it each time the recipe is called, where the recipe runs)")
        } else {
          report.notCarried(
            parameter.source, at: recipe.line,
            "a param's default is plain text in runner, and \(value.source) is not known before the task runs: "
              + "it defaults to empty")
        }
      }
      params.append(param)
      scope.parameters[parameter.name] = name
    }
    return params
  }

  /// A default of text and the params before it (`b=a + '-x'`) as `${{ params.a }}-x`; nil
  /// when it reads anything else.
  func defaultReadingParams(_ value: JustExpression, _ scope: JustScope) -> String? {
    var notes: [String] = []
    var folding = scope
    folding.foldsVariables = true
    guard let found = try? pieces(value, folding, &notes), notes.isEmpty,
      found.contains(where: { if case .parameter = $0 { true } else { false } })
    else { return nil }
    return try? Self.withText(found)
  }

  /// `command` without the params runner puts in a default command's environment: just runs
  /// backticks with its exported variables only.
  func isolated(_ command: String, from names: [String]) -> String {
    // An exported variable just does hand to backticks; a read-only name cannot be unset.
    let hidden = names.filter { !exportedParams.contains($0) }
    return hidden.isEmpty ? command : "unset " + hidden.joined(separator: " ") + " 2>/dev/null; " + command
  }

  /// A command printing a default known only when it is computed (a backtick, `arch()`, …),
  /// when it reads no other parameter; nil otherwise.
  func defaultCommand(_ value: JustExpression, _ recipe: JustRecipe) -> String? {
    if case .backtick(let command) = value { return command }
    var notes: [String] = []
    var scope = JustScope()
    scope.recipeName = recipe.name
    scope.startsInFileDirectory = false
    guard case .word(let pieces) = try? evaluate(value, scope, &notes),
      !pieces.contains(where: { if case .parameter = $0 { true } else { false } }),
      let word = try? Self.quotedWord(pieces)
    else { return nil }
    return "printf '%s' " + word
  }

  /// True when a line of `body` reads `$name` or `${name…}` as the shell's own variable.
  static func readsShellVariable(_ name: String, in body: [JustBodyLine]) -> Bool {
    body.contains { line in
      var rest = line.text[...]
      while let found = rest.firstRange(of: "$" + name) {
        let after = rest[found.upperBound...].first
        if after == nil || !(after!.isLetter || after!.isNumber || after! == "_") { return true }
        rest = rest[found.upperBound...]
      }
      return line.text.contains("${" + name + "}") || line.text.contains("${" + name + ":")
        || line.text.contains("${" + name + "+") || line.text.contains("${" + name + "-")
    }
  }

  /// Each parameter's param name: `-` becomes `_`, and a name programs read from their
  /// environment (`PATH`, `CC` …) becomes a lower-case one ending in `_` unless just exports it
  /// too — runner puts a task's params in its environment.
  func paramNames(of recipe: JustRecipe) -> [String: String] {
    let named = recipe.parameters.filter { $0.variadic == nil }
    var taken = Set(named.map { Self.variableName($0.name) })
    var names: [String: String] = [:]
    for parameter in named {
      var name = Self.variableName(parameter.name)
      if !parameter.isExported, !settings.export, Self.isReadFromEnvironment(name) {
        name = name.lowercased() + "_"
        while taken.contains(name) { name += "_" }
        taken.insert(name)
      }
      names[parameter.name] = name
    }
    return names
  }

  /// Names the shell and common programs read from their environment.
  static let environmentNames: Set<String> = [
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "IFS", "LANG", "LANGUAGE", "TERM", "TMPDIR", "TZ",
    "CDPATH", "ENV", "BASH_ENV", "PS1", "PS2", "PS4", "OPTIND", "OPTARG", "HOSTNAME", "MAIL", "EDITOR", "VISUAL",
    "PAGER", "DISPLAY", "CC", "CXX", "CPP", "LD", "AR", "AS", "NM", "RANLIB", "STRIP", "CFLAGS", "CXXFLAGS", "CPPFLAGS",
    "LDFLAGS", "LDLIBS", "MAKE", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "PKG_CONFIG_PATH", "GOPATH", "GOROOT",
    "GOFLAGS", "GOOS", "GOARCH", "GOBIN", "GO111MODULE", "CGO_ENABLED", "RUSTFLAGS", "RUSTDOCFLAGS", "RUSTC",
    "CARGO", "CARGO_HOME", "CARGO_TARGET_DIR", "RUSTUP_TOOLCHAIN", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV",
    "NODE_OPTIONS", "NODE_PATH", "NODE_ENV", "NPM_CONFIG_PREFIX", "JAVA_HOME", "CLASSPATH", "GEM_HOME", "GEM_PATH",
    "RUBYLIB", "PERL5LIB", "GIT_DIR", "GIT_WORK_TREE", "DOCKER_HOST", "DEBUG", "CI", "SSL_CERT_FILE",
    "http_proxy", "https_proxy", "no_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
  ]

  /// True for a name the shell or other programs read from their environment.
  static func isReadFromEnvironment(_ name: String) -> Bool {
    environmentNames.contains(name) || name.hasPrefix("LC_") || name.hasPrefix("LD_") || name.hasPrefix("DYLD_")
      || name.hasPrefix("XDG_")
  }

  /// `foo::bar::baz` as the task of the modules' includes, `foo:bar:baz`, when `foo` is a
  /// module of this file.
  func moduleTask(_ path: String) -> String? {
    let parts = path.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
    guard parts.count > 1, parts.allSatisfy({ !$0.isEmpty }), justfile.modules.contains(where: { $0.name == parts[0] })
    else { return nil }
    return parts.joined(separator: ":")
  }

  /// A dependency with its arguments as `with:` values of the called recipe's params.
  mutating func convert(_ dependency: JustDependency, of recipe: JustRecipe, _ scope: JustScope) -> ImportedDependency?
  {
    let construct = dependency.source
    if dependency.name.contains("::") {
      // A module's recipe: a task of the module's include, `foo:bar`.
      guard let task = moduleTask(dependency.name) else {
        report.notCarried(construct, at: recipe.line, "it names a recipe of a module this file does not declare")
        return nil
      }
      guard dependency.arguments.isEmpty else {
        report.notCarried(construct, at: recipe.line, "arguments to a module's recipe are not carried over")
        return nil
      }
      return ImportedDependency(task)
    }
    guard !dependency.isSpread else {
      report.notCarried(construct, at: recipe.line, "runner has no dependency per list element: list each one")
      return nil
    }
    let name = justfile.aliases.first { $0.name == dependency.name }?.target ?? dependency.name
    guard let called = recipes[name] else {
      report.notCarried(construct, at: recipe.line, "there is no recipe '\(dependency.name)'")
      return nil
    }
    let parameters = called.parameters.filter { $0.variadic == nil }
    var result = ImportedDependency(name)
    var scope = scope
    scope.foldsVariables = true
    for (index, argument) in dependency.arguments.enumerated() {
      // The caller's variadic words, last, for the called recipe's variadic: runner's `args: pass`.
      if index == parameters.count, index == dependency.arguments.count - 1, called.parameters.last?.variadic != nil,
        case .variable(let name) = argument, name == recipe.parameters.last(where: { $0.variadic != nil })?.name
      {
        result.passesArguments = true
        if !settings.lists {
          report.approximate(
            construct, at: recipe.line,
            "the words after -- reach \(called.name) as they are (args: pass); just joins them into one word "
              + "without set lists")
        }
        break
      }
      // The caller's variadic words for one parameter: without `set lists` just joins them,
      // as `${{ runner.args }}` does.
      if index < parameters.count, !settings.lists, case .variable(let name) = argument,
        name == recipe.parameters.last(where: { $0.variadic != nil })?.name
      {
        let param = paramNames(of: called)[parameters[index].name] ?? parameters[index].name
        result.with.append((param, "${{ runner.args }}"))
        report.approximate(
          construct, at: recipe.line,
          "\(name): runner.args, the words after -- joined with spaces: the words \(recipe.name) was given when it "
            + "is the target (just passes a dependency's own)")
        continue
      }
      guard index < parameters.count else {
        report.notCarried(
          construct, at: recipe.line,
          "the words for \(name)'s \(called.parameters.last?.source ?? "") cannot be passed by a dependency")
        break
      }
      var notes: [String] = []
      let names = paramNames(of: called)
      let param = names[parameters[index].name] ?? parameters[index].name
      var found: [JustPiece] = []
      do throws(JustValueProblem) {
        found = try pieces(argument, scope, &notes)
        let value = try Self.withText(found)
        result.with.append((param, value))
        for note in notes { report.approximate(construct, at: recipe.line, note) }
      } catch {
        if var command = Self.printingCommand(found) {
          // The file's exported variables the command reads, as just exports them to it.
          let exported = file.environment.filter { entry in
            !entry.value.contains("$") && (command.contains("$" + entry.name) || command.contains("${" + entry.name))
          }
          if !exported.isEmpty {
            command =
              exported.map { "\($0.name)=\(TasksFileWriter.shellQuoted($0.value))" }.joined(separator: " ")
              + " && export " + exported.map(\.name).joined(separator: " ") + " && " + command
          }
          // Known when the run starts (the environment, a command): a param of the caller whose
          // default the shell prints, once, as just evaluates the argument once.
          let stem = "arg_" + String(name.map { $0.isLetter || $0.isNumber ? $0 : "_" }) + "_" + param
          var holder = stem
          var count = 1
          command = isolated(command, from: file.params.map(\.name))
          while let taken = argumentParams.first(where: { $0.name == holder }), taken.defaultCommand != command {
            count += 1
            holder = stem + "_\(count)"
          }
          if !argumentParams.contains(where: { $0.name == holder }) {
            argumentParams.append(ImportedParam(name: holder, defaultCommand: command))
          }
          result.with.append((param, "${{ params.\(holder) }}"))
          report.approximate(
            construct, at: recipe.line,
            "\(argument.source) becomes the param \(holder) of \(recipe.name) with default: { sh: … }, run once when "
              + "the file loads, with sh, runner's own environment and the file's exported values")
        } else {
          report.notCarried(construct, at: recipe.line, "\(argument.source): \(error.reason)")
        }
      }
    }
    return result
  }

  /// `printf` of the pieces, for a value the shell works out from the environment alone; nil
  /// when they read a param or the arguments (nothing sets those when the file loads).
  static func printingCommand(_ pieces: [JustPiece]) -> String? {
    guard pieces.contains(where: { if case .text = $0 { false } else { true } }) else { return nil }
    var text = ""
    for piece in pieces {
      switch piece {
      case .text(let literal): text += escapedForHereDocument(literal).replacing("\"", with: "\\\"")
      case .variable(let name): text += "${\(name)}"
      case .shell(let expansion): text += expansion
      case .parameter, .arguments, .quotedArguments, .quotedWord: return nil
      }
    }
    return "printf '%s' \"\(text)\""
  }

  /// The dependencies after `&&`: task calls at the end of `run`.
  mutating func subsequent(of recipe: JustRecipe, _ scope: JustScope, into task: inout ImportedTask) {
    guard !recipe.subsequent.isEmpty else { return }
    let priors = Set(recipe.dependencies.map(\.name))
    for repeated in recipe.subsequent where priors.contains(repeated.name) {
      report.approximate(
        repeated.source, at: recipe.line,
        "runner runs a task once per run: \(repeated.name), a dependency of \(recipe.name) too, does not run again "
          + "after it (just runs it again)")
    }
    let calls = recipe.subsequent.compactMap { convert($0, of: recipe, scope) }
    task.params += argumentParams.filter { param in !task.params.contains { $0.name == param.name } }
    argumentParams = []
    guard !calls.isEmpty else { return }
    task.commands += calls.map { ImportedCommand.call($0) }
  }
}
