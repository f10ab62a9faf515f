extension JustScanner {
  /// A quoted string's value: `'raw'`, `"escaped"`, or the indented `'''…'''` / `"""…"""`.
  mutating func string() throws(JustSyntaxError) -> String {
    guard let quote = current else { throw error("expected a string") }
    let triple = String(repeating: quote, count: 3)
    let indented = looks(at: triple)
    let delimiter = indented ? triple : String(quote)
    position += delimiter.count
    var value = ""
    while true {
      guard let character = current else { throw error("the string is never closed") }
      if looks(at: delimiter) {
        position += delimiter.count
        break
      }
      if quote == "\"", character == "\\" {
        value += try escape()
        continue
      }
      value.append(character)
      position += 1
    }
    return indented ? Self.unindent(value) : value
  }

  /// One escape sequence of a `"…"` string (`\n`, `\t`, `\r`, `\\`, `\"`, `\u{…}`, `\` + line break).
  mutating func escape() throws(JustSyntaxError) -> String {
    position += 1
    guard let character = current else { throw error("the string is never closed") }
    position += 1
    switch character {
    case "n": return "\n"
    case "t": return "\t"
    case "r": return "\r"
    case "\\": return "\\"
    case "\"": return "\""
    case "\n":
      while current == " " || current == "\t" { position += 1 }
      return ""
    case "u":
      guard accept("{") else { throw error("expected '{' after '\\u'") }
      let start = position
      while let digit = current, digit.isHexDigit { position += 1 }
      guard let code = UInt32(text(from: start), radix: 16), let scalar = Unicode.Scalar(code), accept("}") else {
        throw error("invalid unicode escape")
      }
      return String(Character(scalar))
    default:
      throw JustSyntaxError(message: "unknown escape '\\\(character)'", offset: position - 2)
    }
  }

  /// A backtick's command: `` `…` `` or the indented ```` ```…``` ````.
  mutating func backtick() throws(JustSyntaxError) -> String {
    let indented = looks(at: "```")
    let delimiter = indented ? "```" : "`"
    position += delimiter.count
    let start = position
    while !looks(at: delimiter) {
      guard !atEnd else { throw error("the backtick is never closed") }
      position += 1
    }
    let command = text(from: start)
    position += delimiter.count
    return indented ? Self.unindent(command) : command
  }

  /// `f'…{{expression}}…'`: the literal pieces and the interpolated expressions, in order.
  mutating func formatString() throws(JustSyntaxError) -> JustExpression {
    let start = position - 1
    guard let quote = current else { throw error("expected a string") }
    let triple = String(repeating: quote, count: 3)
    let delimiter = looks(at: triple) ? triple : String(quote)
    position += delimiter.count
    var parts: [JustExpression] = []
    var literal = ""
    while !looks(at: delimiter) {
      guard let character = current else { throw error("the string is never closed") }
      if accept("{{{{") {
        literal += "{{"
      } else if accept("{{") {
        parts.append(.literal(literal))
        literal = ""
        // Inside the braces an expression may span lines.
        depth += 1
        skipBlanks()
        parts.append(try expression())
        skipBlanks()
        depth -= 1
        guard accept("}}") else { throw error("expected '}}'") }
      } else if quote == "\"", character == "\\" {
        literal += try escape()
      } else {
        literal.append(character)
        position += 1
      }
    }
    position += delimiter.count
    parts.append(.literal(literal))
    if delimiter.count == 3 || parts.contains(where: { if case .other = $0 { true } else { false } }) {
      return .other(text(from: start))
    }
    return .format(parts.filter { $0 != .literal("") })
  }

  /// just's unindent for indented strings and backticks: a first blank line is dropped, the
  /// indentation common to the non-blank lines removed, blank lines emptied.
  static func unindent(_ text: String) -> String {
    var lines: [Substring] = []
    var rest = Substring(text)
    while let newline = rest.firstIndex(of: "\n") {
      lines.append(rest[...newline])
      rest = rest[rest.index(after: newline)...]
    }
    if !rest.isEmpty { lines.append(rest) }
    func isBlank(_ line: Substring) -> Bool { line.allSatisfy { $0.isWhitespace } }
    func indentation(_ line: Substring) -> Substring { line.prefix { $0 == " " || $0 == "\t" } }
    let common = lines.filter { !isBlank($0) }.map(indentation).reduce(nil) { (shared: Substring?, next) in
      guard let shared else { return next }
      return shared.prefix(zip(shared, next).prefix { $0 == $1 }.count)
    }
    var result = ""
    for (index, line) in lines.enumerated() {
      if isBlank(line) {
        if index != 0 && index != lines.count - 1 { result += "\n" }
      } else {
        result += line.dropFirst(common?.count ?? 0)
      }
    }
    return result
  }
}
