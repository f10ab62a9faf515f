/// Reads a justfile's text into a `Justfile`: recipes with their bodies, settings,
/// assignments, aliases. Lines it cannot read become `skipped` items; `problems` holds the
/// syntax errors met.
struct JustfileParser {
  let characters: [Character]
  /// The offset where each line starts.
  let lineStarts: [Int]
  var justfile = Justfile()
  var problems: [(line: Int, message: String)] = []
  /// What just itself refuses (in its words), which the import refuses too.
  var refusals: [(line: Int, message: String)] = []

  init(text: String) {
    // just ignores a byte order mark at the start.
    characters = Array(text.replacing("\r\n", with: "\n").drop { $0 == "\u{FEFF}" })
    var starts = [0]
    for (offset, character) in characters.enumerated() where character == "\n" { starts.append(offset + 1) }
    lineStarts = starts
  }

  /// The text of line `index` (0-based), without its line break.
  func lineText(_ index: Int) -> String {
    let end = index + 1 < lineStarts.count ? lineStarts[index + 1] - 1 : characters.count
    return String(characters[lineStarts[index]..<max(lineStarts[index], end)])
  }

  /// The 0-based line that holds `offset`.
  func lineIndex(of offset: Int) -> Int {
    var low = 0
    var high = lineStarts.count - 1
    while low < high {
      let middle = (low + high + 1) / 2
      if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
    }
    return low
  }

  /// Reads every item.
  mutating func parse() -> Justfile {
    var index = 0
    var comment: String?
    var attributes: [JustAttribute] = []
    while index < lineStarts.count {
      let text = lineText(index)
      let trimmed = text.drop { $0 == " " || $0 == "\t" }
      if let last = attributes.last, trimmed.isEmpty || text.hasPrefix("#"),
        (index..<lineStarts.count).contains(where: { !lineText($0).allSatisfy { $0 == " " || $0 == "\t" } })
      {
        refusals.append((last.line, "extraneous attribute (`\(last.name)`: a recipe must follow it on the next line)"))
        attributes = []
      }
      if trimmed.isEmpty {
        comment = nil
        index += 1
      } else if text.first == " " || text.first == "\t" {
        skip(index, "an indented line outside a recipe", "just reads it as no item: it is left out")
        index += 1
      } else if text.hasPrefix("#") {
        if !(index == 0 && text.hasPrefix("#!")) { comment = String(text.dropFirst().drop { $0 == " " }) }
        index += 1
      } else if text.hasPrefix("[") {
        attributes += self.attributes(index)
        index += 1
      } else {
        index = item(at: index, comment: comment, attributes: attributes)
        comment = nil
        attributes = []
      }
    }
    if let last = attributes.last {
      refusals.append(
        (last.line, "expected a recipe or an alias after attribute `\(last.name)`, but found end of file"))
    }
    return justfile
  }

  /// Records an item left out, on line `index`.
  mutating func skip(_ index: Int, _ construct: String, _ reason: String) {
    justfile.skipped.append(JustSkipped(line: index + 1, construct: construct, reason: reason))
  }

  /// Records a syntax error on line `index` and skips the item.
  mutating func problem(_ index: Int, _ error: JustSyntaxError) {
    let line = lineIndex(of: error.offset) + 1
    problems.append((line, error.message))
    let text = lineText(index)
    skip(
      index, text.count > 60 ? String(text.prefix(57)) + "…" : text, "could not be read (\(error.message)): left out")
  }

  /// The index of the first line after the end of the item the scanner ends on, checking that
  /// only blanks and a comment follow it on that line.
  func lineAfter(_ scanner: JustScanner) throws(JustSyntaxError) -> Int {
    var scanner = scanner
    scanner.skipBlanks()
    if scanner.current == "#" {
      while let character = scanner.current, character != "\n" { scanner.position += 1 }
    }
    guard scanner.atEnd || scanner.current == "\n" else {
      throw scanner.error("unexpected '\(scanner.current.map(String.init) ?? "")'")
    }
    return lineIndex(of: scanner.position) + 1
  }

  // MARK: Items

  /// Reads the item starting on line `index`; returns the line after it.
  mutating func item(at index: Int, comment: String?, attributes: [JustAttribute]) -> Int {
    var scanner = JustScanner(characters, at: lineStarts[index])
    do throws(JustSyntaxError) {
      if let next = try keywordItem(&scanner, index: index, attributes: attributes) { return next }
      scanner.position = lineStarts[index]
      let quiet = scanner.accept("@")
      guard let name = scanner.name() else { throw scanner.error("expected a recipe, a setting or a variable") }
      scanner.skipBlanks()
      if !quiet, scanner.looks(at: "="), !scanner.looks(at: "==") {
        refusals.append((index + 1, "expected ':=' in the assignment of `\(name)`, but found '='"))
      }
      if !quiet, scanner.looks(at: ":=") || (scanner.looks(at: "=") && !scanner.looks(at: "==")) {
        scanner.position += scanner.looks(at: ":=") ? 2 : 1
        return try assignment(&scanner, name: name, exported: false, index: index, attributes: attributes)
      }
      if !quiet, scanner.looks(at: "(") {
        return try function(&scanner, name: name, index: index, attributes: attributes)
      }
      return try recipe(&scanner, name: name, index: index, comment: comment, attributes: attributes)
    } catch {
      problem(index, error)
      return skipBody(after: index)
    }
  }

  /// The line after `index` and the indented lines that follow it.
  func skipBody(after index: Int) -> Int {
    var next = index + 1
    while next < lineStarts.count {
      let text = lineText(next)
      guard text.isEmpty || text.first == " " || text.first == "\t" else { break }
      next += 1
    }
    return next
  }

  /// `set`, `alias`, `export`, `unexport`, `import` and `mod` items; nil when the line is
  /// none of them (a recipe may be named like a keyword).
  mutating func keywordItem(_ scanner: inout JustScanner, index: Int, attributes: [JustAttribute])
    throws(JustSyntaxError) -> Int?
  {
    guard let keyword = scanner.name() else { return nil }
    let afterKeyword = scanner.position
    scanner.skipBlanks()
    let optional = (keyword == "import" || keyword == "mod") && scanner.accept("?")
    if optional { scanner.skipBlanks() }
    guard scanner.position > afterKeyword || optional else { return nil }
    switch keyword {
    case "set":
      guard let name = scanner.name() else { return nil }
      return try setting(&scanner, name: name, index: index, attributes: attributes)
    case "alias", "export":
      guard let name = scanner.name() else { return nil }
      scanner.skipBlanks()
      if keyword == "export", scanner.accept(":=") {
        return try assignment(&scanner, name: name, exported: true, index: index, attributes: attributes)
      }
      // `export foo='bar':` is a recipe named `export`; `export foo = 'bar'` the old assignment.
      if keyword == "export", scanner.looks(at: "="), !scanner.looks(at: "==") {
        var attempt = scanner
        attempt.position += 1
        guard let next = try? assignment(&attempt, name: name, exported: true, index: index, attributes: attributes)
        else { return nil }
        scanner = attempt
        return next
      }
      guard keyword == "alias", scanner.accept(":=") else { return nil }
      scanner.skipBlanks()
      let start = scanner.position
      guard scanner.name() != nil else { throw scanner.error("expected the recipe an alias names") }
      while scanner.accept("::") { _ = scanner.name() }
      let target = scanner.text(from: start)
      let next = try lineAfter(scanner)
      justfile.aliases.append(
        JustAlias(name: name, target: target, attributes: attributes, line: index + 1, source: lineText(index)))
      return next
    case "unexport":
      // `unexport foo:` is a recipe named `unexport`.
      guard let name = scanner.name(), let next = try? lineAfter(scanner) else { return nil }
      justfile.unexported.append((name, index + 1))
      return next
    case "import":
      guard scanner.current == "'" || scanner.current == "\"" else { return nil }
      let file = try scanner.string()
      guard let next = try? lineAfter(scanner) else { return nil }
      if appliesHere(attributes, index) {
        justfile.imports.append(JustImport(path: file, optional: optional, line: index + 1))
      }
      return next
    case "mod":
      guard let name = scanner.name() else { return nil }
      scanner.skipBlanks()
      let file = scanner.current == "'" || scanner.current == "\"" ? try scanner.string() : nil
      guard let next = try? lineAfter(scanner) else { return nil }
      if appliesHere(attributes, index) {
        justfile.modules.append(
          JustModule(name: name, path: file, optional: optional, line: index + 1, source: lineText(index)))
      }
      return next
    default:
      return nil
    }
  }

  /// `set name`, `set name := value`.
  mutating func setting(_ scanner: inout JustScanner, name: String, index: Int, attributes: [JustAttribute])
    throws(JustSyntaxError) -> Int
  {
    scanner.skipBlanks()
    refuseAttributes(attributes, of: "setting `\(name)`", index)
    var value = JustSetting.Value.boolean(true)
    if scanner.accept(":=") {
      scanner.skipBlanks()
      if scanner.looks(atKeyword: "true") || scanner.looks(atKeyword: "false") {
        value = .boolean(scanner.name() == "true")
      } else if scanner.current == "[" {
        value = .list(try stringList(&scanner))
      } else {
        let start = scanner.position
        let expression = try scanner.expression()
        value = .expression(expression)
        // These two take a plain string literal: no expression, `'''`, `x'…'` or `f'…'`.
        let written = scanner.text(from: start)
        if ["indentation", "minimum-version"].contains(name),
          !(written.first == "'" || written.first == "\"") || written.hasPrefix("'''") || written.hasPrefix("\"\"\"")
            || { if case .literal = expression { false } else { true } }()
        {
          refusals.append((index + 1, "`\(name)` setting must be a plain string literal"))
        }
      }
    }
    let next = try lineAfter(scanner)
    if appliesHere(attributes, index) {
      justfile.settings.append(JustSetting(name: name, value: value, line: index + 1, source: lineText(index)))
    }
    return next
  }

  /// just's refusal of an attribute other than an OS one on a setting or function.
  mutating func refuseAttributes(_ attributes: [JustAttribute], of item: String, _ index: Int) {
    guard let invalid = attributes.first(where: { JustfileConversion.systemAttributes[$0.name] == nil }) else {
      return
    }
    refusals.append((index + 1, "\(item) has invalid attribute `\(invalid.name)`"))
  }

  /// False (and the item reported) for a setting or variable that an OS attribute keeps to
  /// other systems than Linux (`[windows] set shell := …`): runner's file holds one value.
  mutating func appliesHere(_ attributes: [JustAttribute], _ index: Int) -> Bool {
    let systems = attributes.map(\.name).filter { JustfileConversion.systemAttributes[$0] != nil }
    guard !systems.isEmpty, !systems.contains("linux"), !systems.contains("unix") else { return true }
    skip(
      index, lineText(index),
      "it is for \(systems.joined(separator: ", ")) only, and runner's file holds one value: the one for Linux is kept")
    return false
  }

  /// `[expression, …]`
  func stringList(_ scanner: inout JustScanner) throws(JustSyntaxError) -> [JustExpression] {
    scanner.position += 1
    scanner.depth += 1
    scanner.skipBlanks()
    var items: [JustExpression] = []
    while !scanner.accept("]") {
      guard !scanner.atEnd else { throw scanner.error("expected ']'") }
      items.append(try scanner.expression())
      scanner.skipBlanks()
      if scanner.accept(",") {
        scanner.skipBlanks()
      } else if !scanner.looks(at: "]") {
        throw scanner.error("expected ','")
      }
    }
    scanner.depth -= 1
    return items
  }

  /// The value after `name :=`.
  mutating func assignment(
    _ scanner: inout JustScanner, name: String, exported: Bool, index: Int, attributes: [JustAttribute]
  ) throws(JustSyntaxError) -> Int {
    scanner.skipBlanks()
    let expression = try scanner.expression()
    let next = try lineAfter(scanner)
    guard appliesHere(attributes, index) else { return next }
    justfile.assignments.append(
      JustAssignment(name: name, expression: expression, isExported: exported, line: index + 1, source: lineText(index))
    )
    return next
  }

  /// `name(a, b) := expression` on line `index`.
  mutating func function(
    _ scanner: inout JustScanner, name: String, index: Int, attributes: [JustAttribute]
  ) throws(JustSyntaxError) -> Int {
    _ = scanner.accept("(")
    var parameters: [String] = []
    scanner.skipBlanks()
    while !scanner.accept(")") {
      guard let parameter = scanner.name() else { throw scanner.error("expected a parameter name") }
      parameters.append(parameter)
      scanner.skipBlanks()
      if scanner.accept(",") {
        scanner.skipBlanks()
      } else if !scanner.looks(at: ")") {
        throw scanner.error("expected ',' or ')'")
      }
    }
    scanner.skipBlanks()
    refuseAttributes(attributes, of: "function `\(name)`", index)
    guard scanner.looks(at: ":=") else { throw scanner.error("expected ':=' after the function's parameters") }
    scanner.position += 2
    scanner.skipBlanks()
    let body = try scanner.expression()
    let next = try lineAfter(scanner)
    // just skips a function for other systems (`[windows] f() := …`) as if it were not there.
    guard appliesHere(attributes, index) else { return next }
    justfile.functions.append(JustFunction(name: name, parameters: parameters, body: body, line: index + 1))
    return next
  }

  /// `[name, name('a'), name: 'a']` on line `index`.
  mutating func attributes(_ index: Int) -> [JustAttribute] {
    var scanner = JustScanner(characters, at: lineStarts[index] + 1)
    var result: [JustAttribute] = []
    do throws(JustSyntaxError) {
      while true {
        scanner.skipBlanks()
        guard let name = scanner.name() else { throw scanner.error("expected an attribute name") }
        var arguments: [JustExpression] = []
        scanner.skipBlanks()
        if name == "arg", scanner.looks(at: "(") {
          arguments = try argOptions(&scanner)
        } else if scanner.looks(at: "(") {
          arguments = try scanner.sequence()
        } else if scanner.accept(":") {
          scanner.skipBlanks()
          arguments = [try scanner.expression()]
        }
        result.append(JustAttribute(name: name, arguments: arguments, line: index + 1))
        scanner.skipBlanks()
        if scanner.accept("]") { break }
        guard scanner.accept(",") else { throw scanner.error("expected ',' or ']'") }
      }
      _ = try lineAfter(scanner)
    } catch {
      problem(index, error)
    }
    return result
  }

  /// `[arg('name', long, short='n', value='v', flag, …)]`: the parameter's name, then options,
  /// each kept as written.
  func argOptions(_ scanner: inout JustScanner) throws(JustSyntaxError) -> [JustExpression] {
    scanner.position += 1
    scanner.depth += 1
    defer { scanner.depth -= 1 }
    scanner.skipBlanks()
    var arguments = [try scanner.expression()]
    scanner.skipBlanks()
    while scanner.accept(",") {
      scanner.skipBlanks()
      if scanner.looks(at: ")") { break }
      let start = scanner.position
      guard scanner.name() != nil else { throw scanner.error("expected an option of [arg]") }
      scanner.skipBlanks()
      if scanner.accept("=") {
        scanner.skipBlanks()
        _ = try scanner.expression()
      }
      arguments.append(.other(scanner.text(from: start)))
      scanner.skipBlanks()
    }
    guard scanner.accept(")") else { throw scanner.error("expected ',' or ')'") }
    return arguments
  }
}
