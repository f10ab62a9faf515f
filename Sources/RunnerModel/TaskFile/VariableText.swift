/// Text with `${NAME}` references, as `env` values and `.env` values write them.
///
/// Only the braced form is a reference: `$HOME` and `$(cmd)` stay as written (there is no command
/// substitution), `$${` spells a literal `${`, and `${{ ... }}` is an expression handled elsewhere,
/// so it is kept as literal text.
package struct VariableText: Sendable, Hashable {
  package enum Part: Sendable, Hashable {
    case literal(String)
    case variable(String)
  }

  /// The parts in order; adjacent literals are merged and empty literals dropped.
  package var parts: [Part]

  /// Text from parts, merging adjacent literals and dropping empty ones (so equal texts compare equal).
  package init(parts: [Part]) {
    var merged: [Part] = []
    for part in parts {
      switch part {
      case .literal(let text) where text.isEmpty: continue
      case .literal(let text):
        if case .literal(let previous) = merged.last {
          merged[merged.count - 1] = .literal(previous + text)
        } else {
          merged.append(part)
        }
      case .variable: merged.append(part)
      }
    }
    self.parts = merged
  }

  /// Plain text with no references.
  package init(literal text: String) { self.init(parts: [.literal(text)]) }

  /// Parses `${NAME}` references, where NAME is `[A-Za-z_][A-Za-z0-9_]*`.
  ///
  /// `$${` is a literal `${`; a `$` not followed by `{` is literal; `${{ ... }}` is kept whole as literal text.
  ///
  /// - Throws: `VariableTextError` at the character offset of the `$`, for a `${` without a closing `}`,
  ///   with an empty or invalid name, or with a shell-style default such as `${A:-x}`.
  package static func parse(_ text: Substring) throws(VariableTextError) -> VariableText {
    let chars = Array(text)
    var parts: [Part] = []
    var literal = ""
    var index = 0
    while index < chars.count {
      let char = chars[index]
      guard char == "$", index + 1 < chars.count else {
        literal.append(char)
        index += 1
        continue
      }
      let next = chars[index + 1]
      if next == "$", index + 2 < chars.count, chars[index + 2] == "{" {
        literal += "${"
        index += 3
      } else if next != "{" {
        literal.append(char)
        index += 1
      } else if index + 2 < chars.count, chars[index + 2] == "{" {
        // An expression: keep it, through its `}}` (or to the end if unclosed), as literal text.
        let end = expressionEnd(chars, from: index + 3)
        literal += String(chars[index..<end])
        index = end
      } else {
        guard let close = chars[(index + 2)...].firstIndex(of: "}") else {
          throw VariableTextError(offset: index, message: "'${' has no closing '}'")
        }
        let name = String(chars[(index + 2)..<close])
        try check(name, offset: index)
        parts.append(.literal(literal))
        literal = ""
        parts.append(.variable(name))
        index = close + 1
      }
    }
    parts.append(.literal(literal))
    return VariableText(parts: parts)
  }

  /// Fills in the variables; `lookup` returning nil gives "".
  package func render(_ lookup: (String) -> String?) -> String {
    parts.map {
      switch $0 {
      case .literal(let text): return text
      case .variable(let name): return lookup(name) ?? ""
      }
    }.joined()
  }

  /// The names referenced, in order of first appearance, each once.
  package var variables: [String] {
    var seen: Set<String> = []
    return parts.compactMap {
      guard case .variable(let name) = $0, seen.insert(name).inserted else { return nil }
      return name
    }
  }

  /// True for `[A-Za-z_][A-Za-z0-9_]*`.
  package static func isValidName(_ name: some StringProtocol) -> Bool {
    guard let first = name.first, first.isASCII, first.isLetter || first == "_" else { return false }
    return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
  }

  /// The index just past the `}}` closing an expression whose body starts at `start`, or the end.
  private static func expressionEnd(_ chars: [Character], from start: Int) -> Int {
    var index = start
    while index + 1 < chars.count {
      if chars[index] == "}", chars[index + 1] == "}" { return index + 2 }
      index += 1
    }
    return chars.count
  }

  private static func check(_ name: String, offset: Int) throws(VariableTextError) {
    if isValidName(name) { return }
    if name.isEmpty { throw VariableTextError(offset: offset, message: "'${}' has no variable name") }
    // `${A:-x}`, `${A-x}`, `${A:=x}`, `${A:?x}`, `${A:+x}`: shell defaults and the like.
    if let mark = name.firstIndex(where: { ":-=?+".contains($0) }), isValidName(name[..<mark]) {
      throw VariableTextError(
        offset: offset,
        message: "'${\(name)}': defaults are not supported; write the value in the file's env instead")
    }
    throw VariableTextError(
      offset: offset,
      message: "'${\(name)}': invalid variable name (use a letter or '_', then letters, digits or '_')")
  }
}

/// A malformed `${...}` reference, at the character offset of its `$`.
package typealias VariableTextError = TextError

/// What is wrong with a piece of text (a condition, a `${NAME}` value), and at which
/// character offset.
package struct TextError: Error, Sendable, Equatable {
  package var offset: Int
  package var message: String

  package init(offset: Int, message: String) {
    self.offset = offset
    self.message = message
  }
}
