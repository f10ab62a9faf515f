import Glibc

/// What just refuses in expressions: list features without `set lists`, and names defined
/// nowhere (also in a branch never taken, which the import would not evaluate).
extension JustfileChecks {
  func expressionProblems(_ problems: inout [(line: Int, message: String)]) {
    let lists = setting("lists")
    if lists, !setting("unstable"), getenv("JUST_UNSTABLE") == nil,
      let line = justfile.settings.first(where: { $0.name == "lists" })?.line
    {
      problems.append(
        (
          line,
          "the `lists` setting is currently unstable, invoke `just` with `--unstable`, set the `JUST_UNSTABLE` "
            + "environment variable, or add `set unstable` to your `justfile` to enable unstable features"
        ))
    }
    if let function = justfile.functions.first, !setting("unstable"), getenv("JUST_UNSTABLE") == nil {
      problems.append(
        (
          function.line,
          "user-defined functions are currently unstable, invoke `just` with `--unstable`, set the `JUST_UNSTABLE` "
            + "environment variable, or add `set unstable` to your `justfile` to enable unstable features"
        ))
    }
    var firstLines: [String: Int] = [:]
    for function in justfile.functions {
      if let first = firstLines[function.name] {
        problems.append(
          (
            function.line,
            "function `\(function.name)` first defined on line \(first) is redefined on line \(function.line)"
          ))
      }
      firstLines[function.name] = firstLines[function.name] ?? function.line
      var seen: Set<String> = []
      for parameter in function.parameters where !seen.insert(parameter).inserted {
        problems.append((function.line, "function `\(function.name)` has duplicate parameter `\(parameter)`"))
      }
    }
    let variables = Set(justfile.assignments.map(\.name))
    let defined = Set(justfile.functions.map(\.name))
    func check(_ expression: JustExpression, at line: Int, names: Set<String>) {
      if !lists, let feature = Self.listFeature(expression, asCondition: false) {
        problems.append((line, feature))
      }
      if !importsOthers {
        for function in Self.calls(expression)
        where !Self.functions.contains(function) && !defined.contains(function) && function != "assert" {
          problems.append((line, "call to unknown function `\(function)`"))
        }
        for (name, count) in Self.callArities(expression) {
          guard let function = justfile.functions.first(where: { $0.name == name }),
            function.parameters.count != count
          else { continue }
          let given = count == 1 ? "1 argument" : "\(count) arguments"
          problems.append((line, "function `\(name)` called with \(given) but takes \(function.parameters.count)"))
        }
      }
      // Names may be defined by what the import could not read, or by another file.
      guard justfile.skipped.isEmpty else { return }
      for name in JustfileConversion.references(expression)
      where !names.contains(name) && !Self.constants.contains(name) {
        problems.append((line, "variable `\(name)` not defined"))
      }
    }
    for assignment in justfile.assignments { check(assignment.expression, at: assignment.line, names: variables) }
    for function in justfile.functions {
      check(function.body, at: function.line, names: variables.union(function.parameters))
    }
    for setting in justfile.settings {
      switch setting.value {
      case .expression(let expression): check(expression, at: setting.line, names: variables)
      case .list(let items): for item in items { check(item, at: setting.line, names: variables) }
      case .boolean: break
      }
    }
    for recipe in justfile.recipes {
      var names = variables
      for parameter in recipe.parameters {
        if let value = parameter.defaultValue { check(value, at: recipe.line, names: names) }
        names.insert(parameter.name)
      }
      for dependency in recipe.dependencies + recipe.subsequent {
        for argument in dependency.arguments { check(argument, at: recipe.line, names: names) }
      }
      // An attribute's arguments may read the recipe's parameters (`[confirm('Deploy ' + target)]`).
      for attribute in recipe.attributes {
        for argument in attribute.arguments { check(argument, at: attribute.line, names: names) }
      }
      // With `set ignore-comments`, comment lines are not analysed.
      for line in recipe.body {
        let (expressions, error) = Self.interpolations(in: line.text)
        if let error { problems.append((line.line, error)) }
        // With `set ignore-comments`, comment lines are parsed but not analysed.
        guard !(setting("ignore-comments") && line.text.hasPrefix("#")) else { continue }
        for expression in expressions { check(expression, at: line.line, names: names) }
      }
    }
  }

  /// The `{{expression}}`s of a recipe line, and the first that is no expression (just refuses it).
  static func interpolations(in text: String) -> ([JustExpression], String?) {
    let characters = Array(text)
    var found: [JustExpression] = []
    var refusal: String?
    var index = 0
    while index + 1 < characters.count {
      guard characters[index] == "{", characters[index + 1] == "{" else {
        index += 1
        continue
      }
      if index + 3 < characters.count, characters[index + 2] == "{", characters[index + 3] == "{" {
        index += 4
        continue
      }
      var scanner = JustScanner(characters, at: index + 2)
      scanner.depth = 1
      scanner.allowsComments = false
      scanner.skipBlanks()
      do throws(JustSyntaxError) {
        let expression = try scanner.expression()
        scanner.skipBlanks()
        guard scanner.accept("}}") else { throw scanner.error("expected '}}'") }
        found.append(expression)
      } catch {
        let near = scanner.current.map { "`\($0)`" } ?? "the end of the line"
        let found = error.message.contains("found") ? "" : ", found \(near)"
        refusal = refusal ?? "the interpolation is no expression: \(error.message)\(found)"
        break
      }
      index = max(scanner.position, index + 2)
    }
    return (found, refusal)
  }

  /// Each call in an expression: the function's name and how many arguments it is given.
  static func callArities(_ expression: JustExpression) -> [(String, Int)] {
    switch expression {
    case .call(let name, let arguments): return [(name, arguments.count)] + arguments.flatMap(callArities)
    case .concatenation(let parts), .format(let parts), .list(let parts): return parts.flatMap(callArities)
    case .conditional(let condition, let then, let otherwise):
      return callArities(condition) + callArities(then) + (otherwise.map(callArities) ?? [])
    case .comparison(_, let left, let right), .or(let left, let right), .and(let left, let right),
      .listConcatenation(let left, let right):
      return callArities(left) + callArities(right)
    case .not(let operand): return callArities(operand)
    case .literal, .variable, .backtick, .other: return []
    }
  }

  /// The functions an expression calls.
  static func calls(_ expression: JustExpression) -> [String] {
    switch expression {
    case .call(let name, let arguments): return [name] + arguments.flatMap(calls)
    case .concatenation(let parts), .format(let parts), .list(let parts): return parts.flatMap(calls)
    case .conditional(let condition, let then, let otherwise):
      return calls(condition) + calls(then) + (otherwise.map(calls) ?? [])
    case .comparison(_, let left, let right), .or(let left, let right), .and(let left, let right),
      .listConcatenation(let left, let right):
      return calls(left) + calls(right)
    case .not(let operand): return calls(operand)
    case .literal, .variable, .backtick, .other: return []
    }
  }

  /// just's built-in functions (`src/function.rs`), `_dir` spellings included.
  static let functions: Set<String> = {
    let names = [
      "absolute_path", "append", "arch", "blake3", "blake3_file", "bool", "cache_directory", "canonicalize",
      "capitalize", "choose", "clean", "config_directory", "config_local_directory", "data_directory",
      "data_local_directory", "datetime", "datetime_utc", "encode_uri_component", "env", "env_var",
      "env_var_or_default", "error", "executable_directory", "extension", "file_name", "file_stem",
      "home_directory", "invocation_directory", "invocation_directory_native", "is_dependency", "join", "join_list",
      "just_executable", "just_pid", "just_version", "justfile", "justfile_directory", "kebabcase", "len",
      "lowercamelcase", "lowercase", "module_directory", "module_file", "module_path", "num_cpus", "num_jobs", "os",
      "os_family", "parent_directory", "path_exists", "prepend", "quote", "read", "recipe_name", "replace",
      "replace_regex", "require", "runtime_directory", "semver_matches", "sha256", "sha256_file", "shell",
      "shoutykebabcase", "shoutysnakecase", "show", "snakecase", "source_directory", "source_file", "split", "style",
      "titlecase", "trim", "trim_end", "trim_end_match", "trim_end_matches", "trim_start", "trim_start_match",
      "trim_start_matches", "uppercamelcase", "uppercase", "uuid", "which", "without_extension",
    ]
    var set = Set(names)
    for name in names where name.hasSuffix("_directory") { set.insert(String(name.dropLast("ectory".count))) }
    for name in names where name.hasSuffix("_directory_native") {
      set.insert(String(name.dropLast("_directory_native".count)) + "_dir_native")
    }
    return set
  }()

  /// just's message for the first feature of `expression` that needs `set lists`, or nil.
  static func listFeature(_ expression: JustExpression, asCondition: Bool) -> String? {
    switch expression {
    case .list: return "list literals require `set lists`"
    case .or, .and: return "logical operators require `set lists`"
    case .not: return "negation operator requires `set lists`"
    case .listConcatenation: return "list concatenation operator `++` requires `set lists`"
    case .comparison(_, let left, let right):
      if !asCondition { return "comparison operators require `set lists`" }
      return listFeature(left, asCondition: false) ?? listFeature(right, asCondition: false)
    case .conditional(let condition, let then, let otherwise):
      guard case .comparison = condition else {
        return "`if` and `assert` conditions other than comparisons require `set lists`"
      }
      guard let otherwise else { return "`if` without `else` requires `set lists`" }
      return listFeature(condition, asCondition: true) ?? listFeature(then, asCondition: false)
        ?? listFeature(otherwise, asCondition: false)
    case .call(let name, let arguments):
      if ["bool", "join_list", "num_jobs", "show", "split", "which"].contains(name) {
        return "the `\(name)()` function requires `set lists`"
      }
      if name == "assert", let condition = arguments.first {
        // `assert(a == b, message)`: its condition is a condition, as `if`'s is.
        guard case .comparison = condition else {
          return "`if` and `assert` conditions other than comparisons require `set lists`"
        }
        return listFeature(condition, asCondition: true)
          ?? arguments.dropFirst().lazy.compactMap { listFeature($0, asCondition: false) }.first
      }
      return arguments.lazy.compactMap { listFeature($0, asCondition: false) }.first
    case .concatenation(let parts), .format(let parts):
      return parts.lazy.compactMap { listFeature($0, asCondition: false) }.first
    case .literal, .variable, .backtick, .other: return nil
    }
  }
}
