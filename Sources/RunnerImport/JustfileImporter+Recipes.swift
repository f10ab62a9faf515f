/// What a recipe's attributes (and the settings) say about its task.
struct JustRecipeOptions: Sendable {
  /// The `runner.os` comparisons of its OS attributes, joined with `||`.
  var systems: [String] = []
  /// `[confirm]` (nil inside: just's own question) or `[confirm("…")]`.
  var confirm: String??
  var directory: String?
  var noCd = false
  var positionalArguments = false
  var parallel = false
  /// `[script]` / `[script(COMMAND)]`: the interpreter's argv.
  var script: [String]?
  var isPrivate = false
  /// `[doc]` without an argument hides the comment.
  var doc: String??
  var environment: [(name: String, value: String)] = []
}

extension JustfileConversion {
  /// Every recipe as a task, in file order. Recipes of one name that are each for other
  /// systems (`[linux]`, `[macos]`) become one task that depends on one task per system.
  mutating func convertRecipes() -> [ImportedTask] {
    var groups: [String: [JustRecipe]] = [:]
    var order: [String] = []
    for recipe in justfile.recipes {
      if groups[recipe.name] == nil { order.append(recipe.name) }
      groups[recipe.name, default: []].append(recipe)
    }
    var kept: [String: [JustRecipe]] = [:]
    for name in order {
      let group = groups[name] ?? []
      if group.count > 1, group.allSatisfy({ $0.attributes.contains { Self.systemAttributes.keys.contains($0.name) } })
      {
        kept[name] = group
      } else if settings.allowDuplicateRecipes, let last = group.last {
        kept[name] = [last]
      } else if let first = group.first {
        kept[name] = [first]
        for duplicate in group.dropFirst() {
          report.notCarried(
            duplicate.header, at: duplicate.line,
            "just refuses a recipe defined twice (without allow-duplicate-recipes): the first one is kept")
        }
      }
      recipes[name] = kept[name]?.first
    }
    var tasks: [ImportedTask] = []
    for name in order {
      let group = kept[name] ?? []
      if group.count == 1 {
        tasks.append(task(for: group[0], named: name))
      } else {
        tasks += variants(group, named: name)
      }
    }
    return tasks
  }

  /// Recipes of one name for different systems: `NAME.linux`, `NAME.macos`, … (internal, each
  /// with its `if:`), and `NAME`, which depends on them and passes its params on.
  mutating func variants(_ group: [JustRecipe], named name: String) -> [ImportedTask] {
    var umbrella = ImportedTask(name: name)
    var tasks: [ImportedTask] = []
    for recipe in group {
      let systems = recipe.attributes.filter { Self.systemAttributes.keys.contains($0.name) }.map(\.name)
      var task = self.task(for: recipe, named: "\(name).\(systems.joined(separator: "-"))")
      umbrella.description = umbrella.description ?? task.description
      task.isInternal = true
      for param in task.params where !umbrella.params.contains(where: { $0.name == param.name }) {
        umbrella.params.append(param)
      }
      umbrella.dependencies.append(
        ImportedDependency(task.name, with: task.params.map { ($0.name, "${{ params.\($0.name) }}") }))
      if let variadic = recipe.parameters.first(where: { $0.variadic != nil }) {
        report.approximate(
          variadic.source, at: recipe.line,
          "\(name) is a task that depends on \(task.name): the words after `--` reach only the task named on "
            + "the command line")
      }
      tasks.append(task)
    }
    umbrella.isInternal = group.allSatisfy { recipeOptions(for: $0).0.isPrivate }
    return [umbrella] + tasks
  }

  /// The `runner.os` comparison of each OS attribute (`uname -s` in lower case).
  static let systemAttributes: [String: String] = [
    "linux": "runner.os == 'linux'", "macos": "runner.os == 'darwin'", "windows": "runner.os == 'windows'",
    "unix": "runner.os != 'windows'", "freebsd": "runner.os == 'freebsd'", "openbsd": "runner.os == 'openbsd'",
    "netbsd": "runner.os == 'netbsd'", "dragonfly": "runner.os == 'dragonfly'", "android": "",
  ]

  // MARK: One recipe

  /// The task for one recipe.
  mutating func task(for recipe: JustRecipe, named name: String) -> ImportedTask {
    var task = ImportedTask(name: name)
    let options = reportedOptions(for: recipe)
    task.description = options.doc ?? recipe.comment
    task.isInternal = options.isPrivate || recipe.name.hasPrefix("_")
    if !options.systems.isEmpty { task.condition = "${{ \(options.systems.joined(separator: " || ")) }}" }
    if let confirm = options.confirm { task.prompt = confirm ?? "Run recipe `\(recipe.name)`?" }
    task.directory = options.noCd ? nil : options.directory ?? settings.workingDirectory
    task.environment = options.environment
    var scope = JustScope()
    scope.recipeName = recipe.name
    scope.startsInFileDirectory = task.directory == nil && !options.noCd
    task.params = params(of: recipe, &scope)
    for dependency in recipe.dependencies {
      guard let converted = convert(dependency, of: recipe, scope) else { continue }
      if !task.dependencies.contains(where: {
        $0.name == converted.name && $0.with.elementsEqual(converted.with, by: ==)
      }) {
        task.dependencies.append(converted)
      }
    }
    if recipe.dependencies.count > 1, !options.parallel {
      report.approximate(
        "\(recipe.name): \(recipe.dependencies.map(\.source).joined(separator: " "))", at: recipe.line,
        "runner runs a task's dependencies at the same time (just: one after another, in this order); where one "
          + "needs another done first, make it depend on it")
    }
    body(of: recipe, options, scope, into: &task)
    if let words = scope.variadicDefault {
      let prefix = "[ \"$#\" -gt 0 ] || set -- \(words.map(JustFunctions.quoted).joined(separator: " "))"
      task.commands = task.commands.map { command in
        guard case .shell(let text) = command else { return command }
        return .shell(text.contains("\n") ? prefix + "\n" + text : prefix + "; " + text)
      }
    }
    subsequent(of: recipe, scope, into: &task)
    return task
  }

  /// The options from a recipe's attributes, and the attributes not carried with why.
  func recipeOptions(for recipe: JustRecipe) -> (JustRecipeOptions, [(JustAttribute, JustValueProblem)]) {
    var options = JustRecipeOptions()
    options.noCd = settings.noCd
    options.positionalArguments = settings.positionalArguments
    if settings.defaultScript, !recipe.attributes.contains(where: { $0.name == "shell" }) {
      options.script = settings.scriptInterpreter
    }
    var problems: [(JustAttribute, JustValueProblem)] = []
    for attribute in recipe.attributes {
      if let problem = apply(attribute, to: &options, of: recipe) { problems.append((attribute, problem)) }
    }
    return (options, problems)
  }

  /// The options from a recipe's attributes, reporting those not carried.
  mutating func reportedOptions(for recipe: JustRecipe) -> JustRecipeOptions {
    let (options, problems) = recipeOptions(for: recipe)
    for (attribute, problem) in problems {
      if problem.level == .approximate {
        report.approximate(attribute.source, at: attribute.line, problem.reason)
      } else {
        report.notCarried(attribute.source, at: attribute.line, problem.reason)
      }
    }
    if options.noCd {
      report.approximate(
        settings.noCd ? "set no-cd" : "[no-cd]", at: recipe.line,
        "runner starts every task in the task file's directory: each command of \(recipe.name) begins with "
          + "cd \"$RUNNER_INVOCATION_DIR\" (where runner was started)")
    }
    return options
  }

  /// One attribute; returns what to report about it, if anything.
  func apply(_ attribute: JustAttribute, to options: inout JustRecipeOptions, of recipe: JustRecipe)
    -> JustValueProblem?
  {
    var text = attribute.arguments.first.flatMap(constant)
    // A recipe's parameter, where runner reads params when it loads the file (`dir`).
    if attribute.name == "working-directory", text == nil, case .variable(let name) = attribute.arguments.first,
      let param = paramNames(of: recipe)[name]
    {
      text = "${{ params.\(param) }}"
    }
    switch attribute.name {
    case "private": options.isPrivate = true
    case "no-cd": options.noCd = true
    case "positional-arguments": options.positionalArguments = true
    case "parallel": options.parallel = true
    case "doc": options.doc = .some(text)
    case "working-directory":
      guard let directory = text else { return .notCarried("the directory must be plain text in runner") }
      options.directory =
        directory.hasPrefix("/") || settings.workingDirectory == nil
        ? directory : "\(settings.workingDirectory ?? "")/\(directory)"
    case "script":
      let words = attribute.arguments.compactMap(constant)
      options.script = words.isEmpty ? settings.scriptInterpreter : words
    case "env":
      guard attribute.arguments.count == 2, let name = text, JustText.isVariableName(name) else {
        return .notCarried("the variable's name must be plain text")
      }
      var notes: [String] = []
      do throws(JustValueProblem) {
        let value = try Self.environmentText(try pieces(attribute.arguments[1], JustScope(), &notes), &notes)
        // The last of a name wins, as in just; `[]` leaves it unset.
        options.environment.removeAll { $0.name == name }
        if settings.lists, try evaluate(attribute.arguments[1], JustScope(), &notes) == .known([]) { break }
        options.environment.append((name, value))
      } catch {
        return .notCarried(error.reason)
      }
    case "confirm": options.confirm = .some(text)
    case "android":
      return .notCarried("runner.os is 'linux' on Android too: it cannot tell them apart")
    case let name where Self.systemAttributes[name] != nil:
      options.systems.append(Self.systemAttributes[name] ?? "")
    case "extension":
      return JustValueProblem(
        level: .approximate,
        reason: "runner hands the script to its interpreter with -c (or on stdin), not as a file with that "
          + "extension: $0 and the script's own path differ")
    case "group", "no-exit-message", "exit-message", "no-quiet", "metadata", "shell", "default":
      // Listing, echoing and messages: nothing runner needs ([default] is read by chooseDefault).
      break
    case "arg":
      return .notCarried("runner sets params as NAME=value: the option form, pattern and help are not checked")
    case "cache":
      return .notCarried("runner skips a task whose 'sources' and 'outputs' are unchanged: declare them")
    case "continue":
      return .notCarried("runner ends a task interrupted by a signal: handle it in the command (trap)")
    case "timestamp":
      return .notCarried("runner prints no command timestamps (--events FILE records when each line came)")
    default:
      return .notCarried("just's attribute [\(attribute.name)] has no equivalent in runner")
    }
    return nil
  }

  // MARK: Parameters and dependencies

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
          if case .known(let words) = try? evaluate(value, JustScope(), &ignored) {
            // Without words after `--`, the default's words (just splices the text, which the
            // shell splits): each command starts by setting them.
            scope.variadicDefault = words.joined(separator: " ").split(whereSeparator: \.isWhitespace).map(String.init)
          } else {
            reason += " (the default \(value.source) is not used)"
          }
        }
        if parameter.isExported { reason += " ($\(parameter.name) is not set: read \"$@\")" }
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
      var param = ImportedParam(name: name, required: parameter.defaultValue == nil)
      if let value = parameter.defaultValue {
        var ignored: [String] = []
        if settings.lists, parameter.isExported || settings.export,
          case .known([]) = try? evaluate(value, JustScope(), &ignored)
        {
          report.approximate(
            parameter.source, at: recipe.line,
            "runner puts the param in the environment, empty; just leaves $\(parameter.name) unset for []")
        }
        if let text = constant(value) {
          param.defaultValue = text
          if !Self.isPlainWords(text) {
            report.approximate(
              parameter.source, at: recipe.line,
              "a value holding shell syntax is passed as words, not re-parsed: just splices the text of "
                + "{{\(parameter.name)}} into the command, where the shell reads its quotes, $, globs …; "
                + "${\(name)} is not read again")
          }
        } else if let command = defaultCommand(value, recipe) {
          // A default the shell computes: a command whose output is the value.
          param.defaultCommand = command
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
      guard index < parameters.count else {
        report.notCarried(
          construct, at: recipe.line,
          "the words for \(name)'s \(called.parameters.last?.source ?? "") cannot be passed by a dependency")
        break
      }
      var notes: [String] = []
      do throws(JustValueProblem) {
        let value = try Self.withText(try pieces(argument, scope, &notes))
        let names = paramNames(of: called)
        result.with.append((names[parameters[index].name] ?? parameters[index].name, value))
        for note in notes { report.approximate(construct, at: recipe.line, note) }
      } catch {
        report.notCarried(construct, at: recipe.line, "\(argument.source): \(error.reason)")
      }
    }
    return result
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
    guard !calls.isEmpty else { return }
    task.commands += calls.map { ImportedCommand.call($0) }
  }
}
