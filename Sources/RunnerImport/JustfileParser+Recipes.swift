/// Recipes: the header (parameters, dependencies) and the indented body.
extension JustfileParser {
  /// A recipe: the header from the scanner (after its name), then the indented body.
  mutating func recipe(
    _ scanner: inout JustScanner, name: String, index: Int, comment: String?, attributes: [JustAttribute]
  ) throws(JustSyntaxError) -> Int {
    var parameters: [JustParameter] = []
    while true {
      scanner.skipBlanks()
      guard let parameter = try parameter(&scanner) else { break }
      parameters.append(parameter)
    }
    guard scanner.accept(":") else { throw scanner.error("expected ':' after the recipe's parameters") }
    var dependencies: [JustDependency] = []
    var subsequent: [JustDependency] = []
    var afterAnd = false
    while true {
      scanner.skipBlanks()
      if scanner.accept("&&") {
        afterAnd = true
        continue
      }
      guard let dependency = try dependency(&scanner) else { break }
      if afterAnd { subsequent.append(dependency) } else { dependencies.append(dependency) }
    }
    let next = try lineAfter(scanner)
    let header = (index..<next).map(lineText).joined(separator: "\n")
    let (body, end) = body(from: next)
    justfile.recipes.append(
      JustRecipe(
        name: name, line: index + 1, attributes: attributes, comment: comment, parameters: parameters,
        dependencies: dependencies, subsequent: subsequent, body: body, header: header))
    return end
  }

  /// `'$'? NAME ('=' value)?` or `('+' | '*') '$'? NAME ('=' value)?`; nil at the `:`.
  func parameter(_ scanner: inout JustScanner) throws(JustSyntaxError) -> JustParameter? {
    var variadic: Character?
    if let character = scanner.current, character == "+" || character == "*" {
      variadic = character
      scanner.position += 1
    }
    let exported = scanner.accept("$")
    guard let name = scanner.name() else {
      if variadic != nil || exported { throw scanner.error("expected a parameter name") }
      return nil
    }
    scanner.skipBlanks()
    var defaultValue: JustExpression?
    if scanner.accept("=") {
      scanner.skipBlanks()
      defaultValue = try scanner.value()
    }
    return JustParameter(name: name, defaultValue: defaultValue, variadic: variadic, isExported: exported)
  }

  /// `NAME ('::' NAME)*` or `'*'? '(' target argument* ')'`; nil at the end of the line.
  func dependency(_ scanner: inout JustScanner) throws(JustSyntaxError) -> JustDependency? {
    let spread = scanner.looks(at: "*(") && scanner.accept("*")
    if scanner.accept("(") {
      scanner.depth += 1
      scanner.skipBlanks()
      guard let name = target(&scanner) else { throw scanner.error("expected a recipe name") }
      var arguments: [JustExpression] = []
      scanner.skipBlanks()
      while !scanner.accept(")") {
        guard !scanner.atEnd else { throw scanner.error("expected ')'") }
        if scanner.accept("*") {
          arguments.append(.other("*" + (try scanner.value()).source))
        } else {
          arguments.append(try scanner.expression())
        }
        scanner.skipBlanks()
      }
      scanner.depth -= 1
      return JustDependency(name: name, arguments: arguments, isSpread: spread)
    }
    guard let name = target(&scanner) else { return nil }
    return JustDependency(name: name, arguments: [])
  }

  /// `NAME ('::' NAME)*`
  func target(_ scanner: inout JustScanner) -> String? {
    let start = scanner.position
    guard scanner.name() != nil else { return nil }
    while scanner.looks(at: "::") {
      scanner.position += 2
      _ = scanner.name()
    }
    return scanner.text(from: start)
  }

  /// The body starting on line `index`: the blank and indented lines, without the indentation
  /// of the first one; trailing blank lines are not part of it. Returns the line after it.
  mutating func body(from index: Int) -> ([JustBodyLine], Int) {
    var lines: [JustBodyLine] = []
    var indentation: Substring?
    var next = index
    while next < lineStarts.count {
      let text = lineText(next)
      // An interpolation may span lines, whatever their indentation: one line, as just reads it.
      if let last = lines.last, Self.endsInsideInterpolation(last.text) {
        lines[lines.count - 1].text += "\n" + text
        next += 1
        continue
      }
      let isBlank = text.allSatisfy { $0 == " " || $0 == "\t" }
      guard isBlank || text.first == " " || text.first == "\t" else { break }
      if isBlank {
        lines.append(JustBodyLine(text: "", line: next + 1))
      } else {
        let prefix = indentation ?? text.prefix { $0 == " " || $0 == "\t" }
        indentation = prefix
        if lines.allSatisfy({ $0.text.isEmpty }), prefix.contains(" "), prefix.contains("\t") {
          let shown = String(prefix).replacing("\t", with: "␉").replacing(" ", with: "␠")
          refusals.append((next + 1, "found a mix of tabs and spaces in leading whitespace: `\(shown)`"))
        }
        if !text.hasPrefix(prefix) {
          let found = text.prefix { $0 == " " || $0 == "\t" }
          func shown(_ text: Substring) -> String { String(text).replacing("\t", with: "␉").replacing(" ", with: "␠") }
          refusals.append(
            (
              next + 1,
              "recipe line has inconsistent leading whitespace, started with `\(shown(prefix))` but found line with `\(shown(found))`"
            ))
        }
        let stripped = text.hasPrefix(prefix) ? text.dropFirst(prefix.count) : text.drop { $0 == " " || $0 == "\t" }
        lines.append(JustBodyLine(text: String(stripped), line: next + 1))
      }
      next += 1
    }
    while lines.last?.text.isEmpty == true { lines.removeLast() }
    return (lines, next)
  }

  /// True when `text` opens a `{{` (not the escaped `{{{{`) that it does not close.
  static func endsInsideInterpolation(_ text: String) -> Bool {
    let characters = Array(text)
    var index = 0
    var inside = false
    while index + 1 < characters.count {
      let pair = (characters[index], characters[index + 1])
      if !inside, pair == ("{", "{") {
        let escaped = index + 3 < characters.count && characters[index + 2] == "{" && characters[index + 3] == "{"
        inside = !escaped
        index += escaped ? 4 : 2
      } else if inside, pair == ("}", "}") {
        inside = false
        index += 2
      } else {
        index += 1
      }
    }
    return inside
  }
}
