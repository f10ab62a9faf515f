/// One `NAME=value` assignment of a `.env` file.
package struct DotEnvEntry: Sendable, Hashable {
  package var name: String
  /// The value; literal-only when it was single-quoted.
  package var value: VariableText
  /// The 1-based line of the NAME.
  package var line: Int

  package init(name: String, value: VariableText, line: Int) {
    self.name = name
    self.value = value
    self.line = line
  }
}

/// A malformed `.env` file, at a 1-based line and column (counted in characters).
package struct DotEnvError: Error, Sendable, Equatable {
  package var line: Int
  package var column: Int
  package var message: String

  package init(line: Int, column: Int, message: String) {
    self.line = line
    self.column = column
    self.message = message
  }
}

/// Reads `.env` files by the rules docker compose, python-dotenv and godotenv share.
///
/// - Blank lines and lines starting with `#` are skipped; `export ` before a name is allowed.
/// - `NAME=value`, with spaces allowed around `=`; NAME is `[A-Za-z_][A-Za-z0-9_]*`.
/// - Unquoted values are trimmed, end at a `#` that follows whitespace, and expand `${NAME}`.
/// - `'...'` is literal (no escapes, no expansion); `"..."` understands `\n \t \r \\ \" \$`
///   (a `\` before anything else stays), expands `${NAME}` (`\${` is a literal `${`).
///   Both may span lines; after the closing quote only whitespace and a `# comment` may follow.
/// - A later entry for the same name is kept after the earlier one; the caller lets it win.
package enum DotEnvParser {
  package static func parse(_ text: String) throws(DotEnvError) -> [DotEnvEntry] {
    var scanner = DotEnvScanner(chars: Array(text))
    var entries: [DotEnvEntry] = []
    while let entry = try scanner.nextEntry() { entries.append(entry) }
    return entries
  }
}

/// A cursor over the file's characters that knows its line and column.
private struct DotEnvScanner {
  let chars: [Character]
  var index = 0
  var line = 1
  var lineStart = 0

  init(chars: [Character]) { self.chars = chars }

  var current: Character? { index < chars.count ? chars[index] : nil }
  var column: Int { index - lineStart + 1 }

  static func isNewline(_ char: Character) -> Bool { char == "\n" || char == "\r\n" || char == "\r" }
  static func isBlank(_ char: Character) -> Bool { char == " " || char == "\t" }

  mutating func advance() {
    if let char = current, Self.isNewline(char) {
      line += 1
      lineStart = index + 1
    }
    index += 1
  }

  mutating func skipBlanks() {
    while let char = current, Self.isBlank(char) { advance() }
  }

  mutating func skipLine() {
    while let char = current, !Self.isNewline(char) { advance() }
    advance()
  }

  func error(_ message: String) -> DotEnvError { DotEnvError(line: line, column: column, message: message) }

  /// The error at an earlier character index (rare, so it counts lines from the start).
  func error(at position: Int, _ message: String) -> DotEnvError {
    var line = 1
    var start = 0
    for (offset, char) in chars[..<min(position, chars.count)].enumerated() where Self.isNewline(char) {
      line += 1
      start = offset + 1
    }
    return DotEnvError(line: line, column: position - start + 1, message: message)
  }

  /// The next assignment, or nil at the end of the file.
  mutating func nextEntry() throws(DotEnvError) -> DotEnvEntry? {
    while true {
      skipBlanks()
      guard let char = current else { return nil }
      if Self.isNewline(char) || char == "#" {
        skipLine()
      } else {
        return try entry()
      }
    }
  }

  private mutating func entry() throws(DotEnvError) -> DotEnvEntry {
    var (name, nameLine, nameColumn) = word()
    if name == "export", let char = current, Self.isBlank(char) {
      skipBlanks()
      if current != "=" { (name, nameLine, nameColumn) = word() }
    }
    if name.isEmpty { throw error("expected a variable name") }
    guard VariableText.isValidName(name) else {
      throw DotEnvError(
        line: nameLine, column: nameColumn,
        message: "invalid variable name '\(name)' (use a letter or '_', then letters, digits or '_')")
    }
    skipBlanks()
    guard current == "=" else { throw error("expected '=' after '\(name)'") }
    advance()
    skipBlanks()
    let value: VariableText
    switch current {
    case "'": value = try singleQuoted()
    case "\"": value = try doubleQuoted()
    default: value = try unquoted()
    }
    return DotEnvEntry(name: name, value: value, line: nameLine)
  }

  /// A run of characters up to a blank, `=`, newline or the end, with where it starts.
  private mutating func word() -> (String, Int, Int) {
    let (start, startLine, startColumn) = (index, line, column)
    while let char = current, !Self.isBlank(char), !Self.isNewline(char), char != "=" { advance() }
    return (String(chars[start..<index]), startLine, startColumn)
  }

  private mutating func unquoted() throws(DotEnvError) -> VariableText {
    let start = index
    var end = index
    // The blanks skipped after `=` count, so `A= # note` is empty.
    var afterBlank = index > 0 && Self.isBlank(chars[index - 1])
    while let char = current, !Self.isNewline(char), !(char == "#" && afterBlank) {
      afterBlank = Self.isBlank(char)
      if !afterBlank { end = index + 1 }
      advance()
    }
    skipLine()
    return try expand(start..<end)
  }

  private mutating func singleQuoted() throws(DotEnvError) -> VariableText {
    let open = index
    advance()
    let start = index
    while let char = current, char != "'" { advance() }
    guard current != nil else { throw error(at: open, "unterminated single-quoted value") }
    let text = String(chars[start..<index])
    advance()
    try finishQuoted()
    return VariableText(literal: text)
  }

  private mutating func doubleQuoted() throws(DotEnvError) -> VariableText {
    let open = index
    advance()
    var parts: [VariableText.Part] = []
    var chunkStart = index
    while let char = current, char != "\"" {
      guard char == "\\", index + 1 < chars.count else {
        advance()
        continue
      }
      parts += try expand(chunkStart..<index).parts
      let escaped: String
      switch chars[index + 1] {
      case "n": escaped = "\n"
      case "t": escaped = "\t"
      case "r": escaped = "\r"
      case "\\", "\"", "$": escaped = String(chars[index + 1])
      default: escaped = "\\" + String(chars[index + 1])
      }
      parts.append(.literal(escaped))
      advance()
      advance()
      chunkStart = index
    }
    guard current != nil else { throw error(at: open, "unterminated double-quoted value") }
    parts += try expand(chunkStart..<index).parts
    advance()
    try finishQuoted()
    return VariableText(parts: parts)
  }

  /// After a closing quote: blanks, then a comment, a newline or the end.
  private mutating func finishQuoted() throws(DotEnvError) {
    skipBlanks()
    guard let char = current else { return }
    guard Self.isNewline(char) || char == "#" else {
      throw error("unexpected '\(char)' after the closing quote (only a '# comment' may follow)")
    }
    skipLine()
  }

  /// Parses `${NAME}` references in a range of the file, placing errors at the reference's `$`.
  private func expand(_ range: Range<Int>) throws(DotEnvError) -> VariableText {
    do {
      return try VariableText.parse(Substring(String(chars[range])))
    } catch {
      throw self.error(at: range.lowerBound + error.offset, error.message)
    }
  }
}
