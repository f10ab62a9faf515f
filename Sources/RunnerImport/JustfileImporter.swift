/// just's justfile → runner's format (see docs/import.md for each construct).
///
/// A recipe becomes a task of the same name, each line one command of its `run` list (just
/// runs each line in its own shell too); parameters become params, which are in the task's
/// environment, so `{{name}}` becomes `${name}` (renamed where the name is one programs read
/// from their environment); exported top-level variables become the file's `env`, the others
/// are spliced as text where they are used. A shebang recipe becomes one script.
struct JustfileImporter {
  let path: String

  func convert(_ text: String) throws(ImportError) -> (ImportedFile, ImportReport) {
    try checkOneJustfile()
    var parser = JustfileParser(text: text)
    var justfile = parser.parse()
    let items = justfile.recipes.count + justfile.assignments.count + justfile.settings.count + justfile.modules.count
    if items == 0, let first = parser.problems.first {
      throw ImportError(file: path, line: first.line, "not a justfile: \(first.message)")
    }
    if let first = parser.refusals.min(by: { $0.line < $1.line }) {
      throw ImportError(file: path, line: first.line, "just refuses the file: \(first.message)")
    }
    var report = ImportReport(file: path)
    try readImports(&justfile, &report)
    do {
      try checkInterpolations(justfile)
      try JustfileChecks(justfile: justfile).check(path: path)
    } catch {
      throw report.located(error)
    }
    // `shell('cmd', 'arg')` of plain text is a backtick with its arguments.
    for index in justfile.assignments.indices {
      justfile.assignments[index].expression = JustExpression.backtickForm(justfile.assignments[index].expression)
    }
    for recipe in justfile.recipes.indices {
      for parameter in justfile.recipes[recipe].parameters.indices {
        guard let value = justfile.recipes[recipe].parameters[parameter].defaultValue else { continue }
        justfile.recipes[recipe].parameters[parameter].defaultValue = JustExpression.backtickForm(value)
      }
    }
    var conversion = JustfileConversion(justfile: justfile, report: report)
    conversion.file.header = ["Imported from \(path) (just) by runner import."]
    conversion.run()
    try includeModules(justfile.modules, into: &conversion)
    checkDotenvFiles(&conversion, justfile)
    // just runs each line with `sh -cu` unless `set shell` says otherwise: no errexit, nounset.
    if conversion.file.shellArguments == nil { conversion.file.shellArguments = ["sh", "-cu"] }
    return (conversion.file, conversion.report)
  }
}

extension JustfileImporter {
  /// just refuses a file where a recipe line opens `{{` that nothing closes (the parser reads
  /// an interpolation on into the next lines, so only the end of the file stops it).
  func checkInterpolations(_ justfile: Justfile) throws(ImportError) {
    for recipe in justfile.recipes {
      for line in recipe.body where JustfileParser.endsInsideInterpolation(line.text) {
        throw ImportError(
          file: path, line: line.line, "unterminated interpolation: '{{' without '}}' (just refuses the file)")
      }
    }
  }
}

/// The settings that change how recipes convert.
struct JustSettings: Sendable {
  var positionalArguments = false
  var workingDirectory: String?
  var noCd = false
  var allowDuplicateRecipes = false
  var allowDuplicateVariables = false
  var guards = false
  /// `set ignore-comments`: a comment line is dropped whole, a `\` at its end joins nothing.
  var ignoreComments = false
  var defaultScript = false
  /// `set export`: every variable and parameter is exported.
  var export = false
  /// `set lists`: values are lists, booleans `"true"` and `[]`.
  var lists = false
  /// `set script-interpreter`: what an empty `[script]` runs with.
  var scriptInterpreter = ["sh", "-eu"]
  /// `set dotenv-override`: `.env` values win over the environment (and load `.env`).
  var dotenvOverride = false
  /// `set dotenv-command`: what these print is read instead of `.env` files.
  var dotenvCommands: [String] = []
}

/// How a top-level variable reaches the tasks.
enum JustBinding: Sendable {
  /// In the file's `env` under this name: read as `${NAME}`.
  case environment(String)
  /// Not in `env`: each use is replaced by the expression's value itself (its text, as just
  /// splices it, or an environment read with a default, which only the shell can write).
  case inline(JustExpression)
  /// A file param (a backtick's value, computed when the file loads), read as a param.
  case param(String)
  /// Left out (reported where it is defined); uses read `${NAME}`, for the user to provide.
  case missing(String)
}

/// One conversion of a justfile.
struct JustfileConversion {
  let justfile: Justfile
  var file = ImportedFile()
  var report: ImportReport
  var settings = JustSettings()
  /// Each top-level variable's binding, by its name in the justfile.
  var bindings: [String: JustBinding] = [:]
  /// The variables whose value is plain text (folded into `with:` values and defaults).
  var constants: [String: String] = [:]
  /// The recipes converted, by name: the last of a name with `allow-duplicate-recipes`, else the first.
  var recipes: [String: JustRecipe] = [:]
  /// Whether the line or script being converted reads the variadic parameter.
  var readsVariadic = false
  /// Whether the report says that variables the import writes in cannot be set from the command line.
  var reportedOverrides = false
  /// Whether the report says that variables that became params are in the environment.
  var reportedParams = false
  /// Backtick variables the file exports (params handed to later backticks, as just does).
  var exportedParams: Set<String> = []
  /// The first interpolation of the line or script being converted that was not carried over.
  var uncarried: String?
  /// Params of the recipe being converted that hold its dependencies' arguments known only
  /// when the run starts (`(bar env('x'))`): each a default the shell prints.
  var argumentParams: [ImportedParam] = []

  /// The variables read anywhere but in recipe lines (`readOutsideLines`).
  let readOutsideLines: Set<String>

  init(justfile: Justfile, report: ImportReport) {
    self.justfile = justfile
    self.report = report
    readOutsideLines = Self.readOutsideLines(justfile)
  }

  /// Converts the whole justfile into `file`, reporting into `report`.
  mutating func run() {
    for skipped in justfile.skipped {
      report.notCarried(skipped.construct, at: skipped.line, skipped.reason)
    }
    // `set lists` changes how every expression evaluates, settings' values too.
    settings.lists = justfile.settings.contains { setting in
      if setting.name == "lists", case .boolean(true) = setting.value { return true }
      return false
    }
    // A setting that reads variables (`set working-directory := dir`) comes after them.
    let readsVariables = justfile.settings.map { setting in
      switch setting.value {
      case .boolean: return false
      case .expression(let expression): return !Self.references(expression).isEmpty
      case .list(let list): return list.contains { !Self.references($0).isEmpty }
      }
    }
    for (setting, reads) in zip(justfile.settings, readsVariables) where !reads { apply(setting) }
    finishDotenv()
    convertVariables()
    for (setting, reads) in zip(justfile.settings, readsVariables) where reads { apply(setting) }
    file.tasks = convertRecipes()
    for alias in justfile.aliases { convert(alias) }
    chooseDefault()
    unexport()
  }

  /// `unexport NAME`: each command starts by removing the variables from its environment.
  mutating func unexport() {
    let unexported = justfile.unexported.map(\.name).filter { JustText.isVariableName($0) }
    for index in file.tasks.indices {
      // A recipe's own parameter of that name stays: just exports it to that recipe.
      let names = unexported.filter { name in !file.tasks[index].params.contains { $0.name == name } }
      guard !names.isEmpty else { continue }
      let prefix = "unset " + names.joined(separator: " ")
      file.tasks[index].commands = file.tasks[index].commands.map { command in
        guard case .shell(let text) = command else { return command }
        return .shell(text.contains("\n") ? prefix + "\n" + text : prefix + "; " + text)
      }
    }
  }

  /// just runs the `[default]` recipe, else the first one, when no recipe is named. A task
  /// named `default` runs by itself in runner; any other needs `default:`.
  mutating func chooseDefault() {
    // A recipe read from an imported file is never the default.
    let own = justfile.recipes.filter { $0.line < ImportReport.lineBase }
    let marked = own.first { recipe in recipe.attributes.contains { $0.name == "default" } }
    guard let recipe = marked ?? own.first, recipe.name != "default" else { return }
    file.defaultTargets = [recipe.name]
  }

  /// A just name as a runner variable or param name: `-` is not allowed there.
  static func variableName(_ name: String) -> String {
    String(name.map { $0 == "-" ? "_" : $0 })
  }
}
