/// What just refuses in a file that parses: the import refuses it too, at the line just names,
/// in just's words (its compile errors), instead of writing a file that runs.
struct JustfileChecks {
  let justfile: Justfile

  /// The settings just knows.
  static let settings: Set<String> = [
    "allow-duplicate-recipes", "allow-duplicate-variables", "default-list", "default-script", "dotenv-command",
    "dotenv-filename", "dotenv-load", "dotenv-override", "dotenv-path", "dotenv-required", "export", "fallback",
    "guards", "ignore-comments", "indentation", "lazy", "lists", "minimum-version", "no-cd", "no-exit-message",
    "positional-arguments", "quiet", "script-interpreter", "shell", "tempdir", "unstable", "windows-powershell",
    "windows-shell", "working-directory",
  ]

  /// Each attribute just knows, with how many arguments it takes.
  static let attributes: [String: ClosedRange<Int>] = {
    var table: [String: ClosedRange<Int>] = [:]
    for name in [
      "android", "cache", "default", "dragonfly", "exit-message", "freebsd", "linux", "macos", "netbsd", "no-cd",
      "no-exit-message", "no-quiet", "openbsd", "parallel", "positional-arguments", "private", "shell", "unix",
      "windows",
    ] {
      table[name] = 0...0
    }
    for name in ["confirm", "doc", "timestamp"] { table[name] = 0...1 }
    for name in ["continue", "script"] { table[name] = 0...Int.max }
    for name in ["extension", "group", "working-directory"] { table[name] = 1...1 }
    // `[arg('name', long, short='n', flag, …)]`: the parameter, then options.
    table["arg"] = 1...Int.max
    table["env"] = 2...2
    table["metadata"] = 1...Int.max
    return table
  }()

  /// The just release whose rules the import follows (checked against just 1.59.0).
  static let justVersion = [1, 59, 0]

  /// just's constants, which attribute arguments may name.
  static let constants = Set(JustFunctions.constants.keys)

  /// Whether the file imports others (`import`, `mod`): names it does not define may be theirs.
  var importsOthers: Bool {
    // A module's names are qualified (`mod::recipe`), and not checked here.
    justfile.skipped.contains { $0.construct.hasPrefix("import") }
  }

  /// Attributes an item may carry more than once.
  static let repeatable: Set<String> = ["arg", "env", "group", "metadata"]

  /// The first thing just refuses, as an error at its line.
  func check(path: String) throws(ImportError) {
    var problems: [(line: Int, message: String)] = []
    settingProblems(&problems)
    variableProblems(&problems)
    for recipe in justfile.recipes { recipeProblems(recipe, &problems) }
    for alias in justfile.aliases {
      attributeProblems(alias.attributes, &problems)
      if !alias.target.contains("::"), !importsOthers,
        !justfile.recipes.contains(where: { $0.name == alias.target && Self.enabledHere($0) }),
        !justfile.modules.contains(where: { $0.name == alias.target })
      {
        problems.append((alias.line, "alias `\(alias.name)` has an unknown target `\(alias.target)`"))
      }
    }
    dependencyProblems(&problems)
    expressionProblems(&problems)
    if let first = problems.min(by: { $0.line < $1.line }) {
      throw ImportError(file: path, line: first.line, "just refuses the file: \(first.message)")
    }
  }

  func setting(_ name: String) -> Bool {
    justfile.settings.contains { setting in
      guard setting.name == name else { return false }
      if case .boolean(false) = setting.value { return false }
      return true
    }
  }

  /// The settings `setting` may not be set with (just's `Setting::conflicts`); a `false`
  /// `dotenv-load`, `dotenv-required` or `no-cd` conflicts with nothing.
  static func conflicts(_ setting: JustSetting) -> [String] {
    if case .boolean(false) = setting.value { return [] }
    switch setting.name {
    case "dotenv-command": return ["dotenv-filename", "dotenv-load", "dotenv-path", "dotenv-required"]
    case "dotenv-filename", "dotenv-load", "dotenv-path", "dotenv-required": return ["dotenv-command"]
    case "no-cd": return ["working-directory"]
    case "working-directory": return ["no-cd"]
    default: return []
    }
  }

  func settingProblems(_ problems: inout [(line: Int, message: String)]) {
    var seen: [String: Int] = [:]
    for setting in justfile.settings {
      if !Self.settings.contains(setting.name) {
        problems.append((setting.line, "unknown setting `\(setting.name)`"))
      }
      if let first = seen[setting.name] {
        problems.append(
          (setting.line, "setting `\(setting.name)` first set on line \(first) is redefined on line \(setting.line)"))
      }
      // Settings just refuses together, named by the later one (`dotenv-command` and a file).
      for earlier in justfile.settings where earlier.line < setting.line {
        if Self.conflicts(earlier).contains(setting.name), Self.conflicts(setting).contains(earlier.name) {
          problems.append(
            (setting.line, "`\(earlier.name)` set on line \(earlier.line) is incompatible with `\(setting.name)`"))
        }
      }
      seen[setting.name] = seen[setting.name] ?? setting.line
      if setting.name == "minimum-version", case .expression(let value) = setting.value {
        let version = String(value.source.filter { $0 != "'" && $0 != "\"" })
        let parts = version.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count != 3 || !parts.allSatisfy({ part in !part.isEmpty && part.allSatisfy { $0.isNumber } }) {
          problems.append(
            (setting.line, "`minimum-version` setting has invalid version `\(version)`: expected `MAJOR.MINOR.PATCH`"))
        } else if parts.compactMap({ Int($0) }).lexicographicallyPrecedes(Self.justVersion) == false,
          parts.compactMap({ Int($0) }) != Self.justVersion
        {
          let running = Self.justVersion.map(String.init).joined(separator: ".")
          problems.append(
            (
              setting.line,
              "justfile requires just \(version) or later, but using \(running) (the just runner import follows)"
            ))
        }
      }
    }
  }

  func variableProblems(_ problems: inout [(line: Int, message: String)]) {
    var unexported = Set<String>()
    for (name, line) in justfile.unexported {
      if !unexported.insert(name).inserted {
        problems.append((line, "variable `\(name)` is unexported multiple times"))
      }
    }
    for assignment in justfile.assignments where assignment.isExported && unexported.contains(assignment.name) {
      problems.append((assignment.line, "variable \(assignment.name) is both exported and unexported"))
    }
    guard !setting("allow-duplicate-variables") else { return }
    var seen = Set<String>()
    for assignment in justfile.assignments where !seen.insert(assignment.name).inserted {
      problems.append((assignment.line, "variable `\(assignment.name)` has multiple definitions"))
    }
  }

  func attributeProblems(_ attributes: [JustAttribute], _ problems: inout [(line: Int, message: String)]) {
    var first: [String: Int] = [:]
    for attribute in attributes {
      guard let range = Self.attributes[attribute.name] else {
        problems.append((attribute.line, "unknown attribute `\(attribute.name)`"))
        continue
      }
      if !range.contains(attribute.arguments.count) {
        let takes =
          range.lowerBound == range.upperBound
          ? "\(range.lowerBound) argument\(range.lowerBound == 1 ? "" : "s")"
          : range.upperBound == Int.max
            ? "at least \(range.lowerBound) argument\(range.lowerBound == 1 ? "" : "s")"
            : "\(range.lowerBound) to \(range.upperBound) arguments"
        let got = "\(attribute.arguments.count) argument\(attribute.arguments.count == 1 ? "" : "s")"
        problems.append((attribute.line, "attribute `\(attribute.name)` got \(got) but takes \(takes)"))
      }
      // Of the repeatable attributes, only `[group]` may not repeat its argument.
      if attribute.name == "group",
        attributes.contains(where: {
          $0.line < attribute.line && $0.name == attribute.name && $0.arguments == attribute.arguments
        })
      {
        problems.append((attribute.line, "`\(attribute.source)` attribute is duplicated on line \(attribute.line)"))
      }
      if let line = first[attribute.name], !Self.repeatable.contains(attribute.name) {
        problems.append(
          (
            attribute.line,
            "attribute `\(attribute.name)` first used on line \(line) is duplicated on line \(attribute.line)"
          ))
      }
      first[attribute.name] = first[attribute.name] ?? attribute.line
    }
  }

  func recipeProblems(_ recipe: JustRecipe, _ problems: inout [(line: Int, message: String)]) {
    attributeProblems(recipe.attributes, &problems)
    for attribute in recipe.attributes where attribute.name == "arg" && !setting("lists") {
      if attribute.arguments.contains(where: { if case .other("flag") = $0 { true } else { false } }) {
        problems.append((attribute.line, "`flag` arguments require `set lists`"))
      }
    }
    let names = Set(recipe.attributes.map(\.name))
    for (one, other) in [("script", "shell"), ("exit-message", "no-exit-message"), ("no-cd", "working-directory")]
    where names.contains(one) && names.contains(other) {
      problems.append((recipe.line, "recipe `\(recipe.name)` has both `[\(one)]` and `[\(other)]` attributes"))
    }
    let script =
      names.contains("script") || recipe.body.first?.text.hasPrefix("#!") == true || setting("default-script")
    if names.contains("extension"), !script {
      problems.append((recipe.line, "shell recipe `\(recipe.name)` has script recipe attribute `extension`"))
    }
    if !script {
      // Line by line, a line indented past the first is an error unless it continues a line.
      // (Inside an interpolation that spans lines, the indentation is the expression's.)
      var open = 0
      for (previous, line) in zip(recipe.body, recipe.body.dropFirst()) {
        open += previous.text.ranges(of: "{{").count - previous.text.ranges(of: "}}").count
        if open <= 0, line.text.first == " " || line.text.first == "\t", !previous.text.hasSuffix("\\") {
          problems.append((line.line, "recipe line has extra leading whitespace"))
        }
      }
    }
    var parameterNames = Set<String>()
    var sawDefault = false
    var sawVariadic = false
    let options = Self.argOptions(recipe)
    for parameter in recipe.parameters {
      if !parameterNames.insert(parameter.name).inserted {
        problems.append((recipe.line, "recipe `\(recipe.name)` has duplicate parameter `\(parameter.name)`"))
      }
      // An option (`[arg(NAME, long)]`) is named where it is given: it may come anywhere.
      let words = options[parameter.name] ?? []
      let isOption = words.contains("long") || words.contains("short")
      if sawVariadic {
        problems.append((recipe.line, "parameter `\(parameter.name)` follows variadic parameter"))
      } else if sawDefault, !isOption, Self.isRequired(parameter, in: recipe, options) {
        problems.append((recipe.line, "non-default parameter `\(parameter.name)` follows default parameter"))
      }
      sawDefault = sawDefault || (parameter.defaultValue != nil && !isOption)
      sawVariadic = sawVariadic || parameter.variadic != nil
    }
  }

  /// Each parameter's `[arg(NAME, …)]` options, by the word before any `=` (`long`, `flag`).
  static func argOptions(_ recipe: JustRecipe) -> [String: [String]] {
    var result: [String: [String]] = [:]
    for attribute in recipe.attributes where attribute.name == "arg" {
      guard case .literal(let name) = attribute.arguments.first else { continue }
      result[name, default: []] += attribute.arguments.dropFirst().compactMap { argument in
        guard case .other(let text) = argument else { return nil }
        return String(text.prefix { $0 != "=" && $0 != " " })
      }
    }
    return result
  }

  /// Whether a dependency must give the parameter a value (just's `Parameter::is_required`).
  static func isRequired(_ parameter: JustParameter, in recipe: JustRecipe, _ options: [String: [String]]) -> Bool {
    parameter.defaultValue == nil && !(options[parameter.name] ?? []).contains("flag") && parameter.variadic != "*"
  }

  /// The platform attributes, of which a recipe with any is enabled only where one says.
  static let platforms: Set<String> = [
    "android", "dragonfly", "freebsd", "linux", "macos", "netbsd", "openbsd", "unix", "windows",
  ]

  /// Whether just reads `recipe` on Linux, where runner runs (it skips a recipe for other
  /// systems as if it were not there).
  static func enabledHere(_ recipe: JustRecipe) -> Bool {
    let named = recipe.attributes.map(\.name).filter(platforms.contains)
    return named.isEmpty || named.contains("linux") || named.contains("unix")
  }

  func dependencyProblems(_ problems: inout [(line: Int, message: String)]) {
    var recipes: [String: JustRecipe] = [:]
    let duplicatesAllowed = setting("allow-duplicate-recipes")
    var defaults = 0
    for recipe in justfile.recipes where Self.enabledHere(recipe) {
      if recipe.attributes.contains(where: { $0.name == "default" }) {
        defaults += 1
        if defaults > 1 {
          problems.append(
            (
              recipe.line,
              "recipe `\(recipe.name)` has duplicate `[default]` attribute, which may only appear once per module"
            ))
        }
      }
      if let first = recipes[recipe.name], !duplicatesAllowed, !importsOthers {
        problems.append(
          (
            recipe.line,
            "recipe `\(recipe.name)` first defined on line \(first.line) is redefined on line \(recipe.line)"
          ))
      }
      // With duplicates allowed, the last definition is the one just runs.
      if recipes[recipe.name] == nil || duplicatesAllowed { recipes[recipe.name] = recipe }
    }
    for recipe in justfile.recipes where Self.enabledHere(recipe) {
      for dependency in recipe.dependencies + recipe.subsequent where !dependency.name.contains("::") {
        guard let target = recipes[dependency.name] else {
          if !importsOthers {
            problems.append((recipe.line, "recipe `\(recipe.name)` has unknown dependency `\(dependency.name)`"))
          }
          continue
        }
        let options = Self.argOptions(target)
        let required = target.parameters.filter { Self.isRequired($0, in: target, options) }.count
        let most =
          target.parameters.contains { $0.variadic != nil } && !setting("lists") ? Int.max : target.parameters.count
        let found = dependency.arguments.count
        if !dependency.isSpread, found < required || found > most {
          let takes =
            required == most
            ? "\(required) argument\(required == 1 ? "" : "s")"
            : most == Int.max ? "at least \(required) arguments" : "\(required) to \(most) arguments"
          problems.append(
            (
              recipe.line,
              "dependency `\(dependency.name)` got \(found) argument\(found == 1 ? "" : "s") but takes \(takes)"
            ))
        }
      }
    }
    // Cycles, found from each recipe in file order, as just walks them.
    var done = Set<String>()
    for recipe in justfile.recipes where Self.enabledHere(recipe) && !done.contains(recipe.name) {
      var stack: [String] = []
      if let circle = cycle(from: recipe.name, recipes, &stack, &done) {
        let line = recipes[circle.dropLast().last ?? recipe.name]?.line ?? recipe.line
        let name = circle.dropLast().last ?? recipe.name
        let message =
          circle.count == 2
          ? "recipe `\(name)` depends on itself"
          : "recipe `\(name)` has circular dependency `\(circle.joined(separator: " -> "))`"
        problems.append((line, message))
        return
      }
    }
  }

  /// The first circle reached from `name`, as `a -> b -> a`.
  func cycle(
    from name: String, _ recipes: [String: JustRecipe], _ stack: inout [String], _ done: inout Set<String>
  ) -> [String]? {
    if let start = stack.firstIndex(of: name) { return Array(stack[start...]) + [name] }
    guard !done.contains(name), let recipe = recipes[name] else { return nil }
    stack.append(name)
    for dependency in recipe.dependencies + recipe.subsequent {
      if let circle = cycle(from: dependency.name, recipes, &stack, &done) { return circle }
    }
    stack.removeLast()
    done.insert(name)
    return nil
  }
}
