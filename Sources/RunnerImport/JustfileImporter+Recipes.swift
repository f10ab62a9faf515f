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
    task.params += argumentParams
    argumentParams = []
    if recipe.dependencies.count > 1, !options.parallel {
      report.approximate(
        "\(recipe.name): \(recipe.dependencies.map(\.source).joined(separator: " "))", at: recipe.line,
        "runner runs a task's dependencies at the same time (just: one after another, in this order); where one "
          + "needs another done first, make it depend on it")
    }
    body(of: recipe, options, scope, into: &task)
    var prefixes: [String] = []
    if let words = scope.variadicDefault {
      prefixes.append("[ \"$#\" -gt 0 ] || set -- \(words.map(TasksFileWriter.shellQuoted).joined(separator: " "))")
    }
    // `+$args`: just exports the words joined with spaces (set where the lines read `$args`).
    if let variadic = recipe.parameters.last, variadic.variadic != nil, variadic.isExported || settings.export,
      JustText.isVariableName(variadic.name),
      recipe.body.contains(where: { Self.environmentReads(in: $0.text).contains(variadic.name) })
    {
      prefixes.append("\(variadic.name)=\"$*\"; export \(variadic.name)")
    }
    for prefix in prefixes.reversed() {
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
      // The attribute wins over `set no-cd` (with `[no-cd]` just refuses the recipe).
      options.noCd = false
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
    case "confirm":
      options.confirm = .some(text)
      if text == nil, !attribute.arguments.isEmpty {
        return JustValueProblem(
          level: .approximate, reason: "the question is not plain text: runner asks just's own question instead")
      }
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
}
