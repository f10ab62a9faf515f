/// What a justfile's variables are read by (recipe lines, settings, other variables), and the
/// working directory `set working-directory` gives, which may read them.
extension JustfileConversion {
  /// Every variable something reads: outside recipe lines, or in an interpolation of one.
  var readAnywhere: Set<String> {
    var names = readOutsideLines
    for recipe in justfile.recipes {
      for line in recipe.body {
        for inner in Self.interpolations(in: line.text) {
          names.formUnion(Self.words(in: inner))
        }
      }
    }
    for function in justfile.functions { names.formUnion(Self.references(function.body)) }
    return names
  }

  /// `set working-directory`'s directory, also while the variables it reads are converted
  /// (it is applied after them).
  func workingDirectory() -> String? {
    if let directory = settings.workingDirectory { return directory }
    for setting in justfile.settings where setting.name == "working-directory" {
      if case .expression(let expression) = setting.value { return directoryTemplate(expression) }
    }
    return nil
  }

  /// A directory as `dir:` takes it: text, with a file param as `${{ params.NAME }}` (a
  /// variable `just NAME=VALUE` may set); nil when it reads anything else.
  func directoryTemplate(_ expression: JustExpression) -> String? {
    if let text = constant(expression) { return text }
    var notes: [String] = []
    var scope = JustScope()
    scope.foldsVariables = true
    guard let found = try? pieces(expression, scope, &notes), notes.isEmpty else { return nil }
    var out = ""
    for piece in found {
      switch piece {
      case .text(let text) where !text.contains("${{"): out += text
      case .parameter(let name) where file.params.contains(where: { $0.name == name }):
        out += "${{ params.\(name) }}"
      default: return nil
      }
    }
    return out
  }

  /// `cd DIR && ` for a command that runs in `directory` (a `dir:` template): a param read as
  /// `"${NAME}"`, in its environment when the command is a param's default.
  static func changingDirectory(to directory: String) -> String {
    var words = ""
    var rest = Substring(directory)
    while let open = rest.firstRange(of: "${{ params."), let close = rest[open.upperBound...].firstRange(of: " }}") {
      if open.lowerBound > rest.startIndex { words += TasksFileWriter.shellQuoted(String(rest[..<open.lowerBound])) }
      words += "\"${\(rest[open.upperBound..<close.lowerBound])}\""
      rest = rest[close.upperBound...]
    }
    if !rest.isEmpty || words.isEmpty { words += TasksFileWriter.shellQuoted(String(rest)) }
    return "cd \(words) && "
  }

  /// The variables read anywhere but in recipe lines: by other variables, settings,
  /// attributes, parameter defaults and dependency arguments (which fold a value in at import).
  static func readOutsideLines(_ justfile: Justfile) -> Set<String> {
    var expressions = justfile.assignments.map(\.expression)
    // `set working-directory := dir` reads a param as `${{ params.dir }}`: not a read that folds.
    for setting in justfile.settings where setting.name != "working-directory" {
      switch setting.value {
      case .boolean: break
      case .expression(let expression): expressions.append(expression)
      case .list(let list): expressions += list
      }
    }
    var names: Set<String> = []
    for recipe in justfile.recipes {
      expressions += recipe.attributes.flatMap(\.arguments)
      expressions += recipe.parameters.compactMap(\.defaultValue)
      expressions += (recipe.dependencies + recipe.subsequent).flatMap(\.arguments)
      // An interpolation that does more than join text (a function, a test, a list) works
      // the value out at import: the names it reads.
      for line in recipe.body {
        names.formUnion(environmentReads(in: line.text))
        for inner in interpolations(in: line.text)
        where ["(", "==", "!=", "=~", "!~", "if ", "||", "&&", "[", "!"].contains(where: { inner.contains($0) }) {
          names.formUnion(Self.words(in: inner))
        }
      }
    }
    for assignment in justfile.assignments {
      if case .backtick(let command) = assignment.expression { names.formUnion(environmentReads(in: command)) }
    }
    return names.union(expressions.flatMap(references))
  }

  /// The names a shell text reads from the environment: `$NAME`, `${NAME…}`.
  static func environmentReads(in text: String) -> [String] {
    var result: [String] = []
    var rest = Substring(text)
    while let dollar = rest.firstIndex(of: "$") {
      rest = rest[rest.index(after: dollar)...]
      if rest.first == "{" { rest = rest.dropFirst() }
      let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
      if !name.isEmpty { result.append(String(name)) }
    }
    return result
  }

  /// The name-like words of an interpolation's text (names, function names, keywords).
  static func words(in text: String) -> [String] {
    text.split { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }.map(String.init)
  }

  /// The text inside each `{{ … }}` of a line (`{{{{` is a literal `{{`).
  static func interpolations(in text: String) -> [String] {
    var result: [String] = []
    var rest = Substring(text)
    while let open = rest.firstRange(of: "{{") {
      if rest[open.upperBound...].hasPrefix("{{") {
        rest = rest[rest.index(open.upperBound, offsetBy: 2)...]
        continue
      }
      guard let close = rest[open.upperBound...].firstRange(of: "}}") else { break }
      result.append(String(rest[open.upperBound..<close.lowerBound]))
      rest = rest[close.upperBound...]
    }
    return result
  }

  /// The variable names an expression reads.
  static func references(_ expression: JustExpression) -> [String] {
    switch expression {
    case .variable(let name): return [name]
    case .call(_, let arguments), .concatenation(let arguments), .format(let arguments), .list(let arguments):
      return arguments.flatMap(references)
    case .conditional(let condition, let then, let otherwise):
      return references(condition) + references(then) + (otherwise.map(references) ?? [])
    case .comparison(_, let left, let right), .or(let left, let right), .and(let left, let right),
      .listConcatenation(let left, let right):
      return references(left) + references(right)
    case .not(let operand): return references(operand)
    case .literal, .backtick, .other: return []
    }
  }
}
