/// What just refuses in expressions: list features without `set lists`, and names defined
/// nowhere (also in a branch never taken, which the import would not evaluate).
extension JustfileChecks {
  func expressionProblems(_ problems: inout [(line: Int, message: String)]) {
    let lists = setting("lists")
    let variables = Set(justfile.assignments.map(\.name))
    func check(_ expression: JustExpression, at line: Int, names: Set<String>) {
      if !lists, let feature = Self.listFeature(expression, asCondition: false) {
        problems.append((line, feature))
      }
      // Names may be defined by what the import could not read, or by another file.
      guard justfile.skipped.isEmpty else { return }
      for name in JustfileConversion.references(expression)
      where !names.contains(name) && !Self.constants.contains(name) {
        problems.append((line, "variable `\(name)` not defined"))
      }
    }
    for assignment in justfile.assignments { check(assignment.expression, at: assignment.line, names: variables) }
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
      for attribute in recipe.attributes {
        for argument in attribute.arguments { check(argument, at: attribute.line, names: variables) }
      }
      for line in recipe.body {
        for expression in Self.interpolations(in: line.text) { check(expression, at: line.line, names: names) }
      }
    }
  }

  /// The `{{expression}}`s of a recipe line that read as expressions.
  static func interpolations(in text: String) -> [JustExpression] {
    let characters = Array(text)
    var found: [JustExpression] = []
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
      scanner.skipBlanks()
      if let expression = try? scanner.expression() {
        scanner.skipBlanks()
        if scanner.accept("}}") { found.append(expression) }
      }
      index = max(scanner.position, index + 2)
    }
    return found
  }

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
      return arguments.lazy.compactMap { listFeature($0, asCondition: false) }.first
    case .concatenation(let parts), .format(let parts):
      return parts.lazy.compactMap { listFeature($0, asCondition: false) }.first
    case .literal, .variable, .backtick, .other: return nil
    }
  }
}
