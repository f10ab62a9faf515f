/// The body of a `${{ ... }}` condition, such as `deps.check.outputs.changed == 'true' && params.mode != 'debug'`.
///
/// Values are strings. Operators, tightest first: `!`, then `==` and `!=`, then `&&`, then `||`, all
/// left-associative; parentheses group. Literals are `'...'` (`''` inside is one quote), `"..."`, `true`
/// and `false`. References are `deps.TASK.outputs.KEY`, `params.NAME`, `env.NAME`, `matrix.NAME`,
/// `runner.os` and `runner.arch`.
package indirect enum ConditionExpression: Sendable, Hashable, CustomStringConvertible {
  package enum Reference: Sendable, Hashable, CustomStringConvertible {
    case output(task: String, key: String)
    case param(String)
    case env(String)
    case matrix(String)
    case runner(String)

    package var description: String {
      switch self {
      case .output(let task, let key): return "deps.\(task).outputs.\(key)"
      case .param(let name): return "params.\(name)"
      case .env(let name): return "env.\(name)"
      case .matrix(let name): return "matrix.\(name)"
      case .runner(let name): return "runner.\(name)"
      }
    }
  }

  case literal(String)
  case reference(Reference)
  case equal(ConditionExpression, ConditionExpression)
  case notEqual(ConditionExpression, ConditionExpression)
  case and(ConditionExpression, ConditionExpression)
  case or(ConditionExpression, ConditionExpression)
  case not(ConditionExpression)

  /// Parses a condition body (without `${{` and `}}`).
  ///
  /// - Throws: `ConditionParseError` at the character offset of the problem.
  package static func parse(_ text: String) throws(ConditionParseError) -> ConditionExpression {
    var parser = ConditionParser(chars: Array(text))
    return try parser.parseAll()
  }

  /// Every reference, in order of appearance (repeats included).
  package var references: [Reference] {
    switch self {
    case .literal: return []
    case .reference(let reference): return [reference]
    case .not(let operand): return operand.references
    case .equal(let left, let right), .notEqual(let left, let right), .and(let left, let right),
      .or(let left, let right):
      return left.references + right.references
    }
  }

  /// Replaces the references `resolve` knows (returns non-nil for) by literals; others stay.
  package func substituting(_ resolve: (Reference) -> String?) -> ConditionExpression {
    switch self {
    case .literal: return self
    case .reference(let reference): return resolve(reference).map { .literal($0) } ?? self
    case .not(let operand): return .not(operand.substituting(resolve))
    case .equal(let left, let right): return .equal(left.substituting(resolve), right.substituting(resolve))
    case .notEqual(let left, let right): return .notEqual(left.substituting(resolve), right.substituting(resolve))
    case .and(let left, let right): return .and(left.substituting(resolve), right.substituting(resolve))
    case .or(let left, let right): return .or(left.substituting(resolve), right.substituting(resolve))
    }
  }

  /// The value as a string: comparisons and logic give "true" or "false"; a reference `lookup` returns
  /// nil for is "". Comparisons are exact (case-sensitive).
  package func value(_ lookup: (Reference) -> String?) -> String {
    switch self {
    case .literal(let text): return text
    case .reference(let reference): return lookup(reference) ?? ""
    default: return isTrue(lookup) ? "true" : "false"
    }
  }

  /// Truth: a value is false when it is "", "false" or "0"; anything else is true.
  package func isTrue(_ lookup: (Reference) -> String?) -> Bool {
    switch self {
    case .literal, .reference: return !["", "false", "0"].contains(value(lookup))
    case .equal(let left, let right): return left.value(lookup) == right.value(lookup)
    case .notEqual(let left, let right): return left.value(lookup) != right.value(lookup)
    case .and(let left, let right): return left.isTrue(lookup) && right.isTrue(lookup)
    case .or(let left, let right): return left.isTrue(lookup) || right.isTrue(lookup)
    case .not(let operand): return !operand.isTrue(lookup)
    }
  }

  /// A normalized spelling that parses back to the same expression, such as
  /// `deps.check.outputs.changed == 'true'`: literals in single quotes, parentheses only where needed.
  package var description: String {
    switch self {
    case .literal(let text): return "'" + text.replacing("'", with: "''") + "'"
    case .reference(let reference): return reference.description
    case .not(let operand): return "!" + operand.spelled(above: precedence)
    case .equal(let left, let right): return binary(left, "==", right)
    case .notEqual(let left, let right): return binary(left, "!=", right)
    case .and(let left, let right): return binary(left, "&&", right)
    case .or(let left, let right): return binary(left, "||", right)
    }
  }

  /// How tightly the top operator binds: `||` 1, `&&` 2, `==`/`!=` 3, `!` 4, values 5.
  private var precedence: Int {
    switch self {
    case .or: return 1
    case .and: return 2
    case .equal, .notEqual: return 3
    case .not: return 4
    case .literal, .reference: return 5
    }
  }

  /// The spelling, parenthesized if it binds more loosely than `minimum`.
  private func spelled(above minimum: Int) -> String {
    precedence < minimum ? "(\(description))" : description
  }

  private func binary(_ left: ConditionExpression, _ op: String, _ right: ConditionExpression) -> String {
    // Left-associative: a right operand of the same precedence needs parentheses.
    "\(left.spelled(above: precedence)) \(op) \(right.spelled(above: precedence + 1))"
  }
}

/// A malformed condition, at a character offset in its body.
package typealias ConditionParseError = TextError

/// A recursive-descent parser over the body's characters.
private struct ConditionParser {
  enum Token: Equatable {
    case open, close, not, equal, notEqual, and, or
    case string(String)
    case word(String)
    case end
  }

  /// Bounds on one condition, so a small file cannot cost unbounded stack (the parser and every
  /// walk of the tree recurse): parentheses and `!` nest at most this deep…
  static let maximumDepth = 64
  /// …and a condition holds at most this many values.
  static let maximumValues = 500

  let chars: [Character]
  var index = 0
  var depth = 0
  var values = 0
  /// The current token and where it starts.
  var token = Token.end
  var start = 0

  init(chars: [Character]) { self.chars = chars }

  mutating func parseAll() throws(ConditionParseError) -> ConditionExpression {
    try advance()
    if token == .end { throw ConditionParseError(offset: 0, message: "empty expression") }
    let expression = try parseOr()
    if token != .end {
      throw ConditionParseError(offset: start, message: "unexpected \(describe(token)) after a complete expression")
    }
    return expression
  }

  private mutating func parseOr() throws(ConditionParseError) -> ConditionExpression {
    var left = try parseAnd()
    while token == .or {
      try advance()
      left = .or(left, try parseAnd())
    }
    return left
  }

  private mutating func parseAnd() throws(ConditionParseError) -> ConditionExpression {
    var left = try parseComparison()
    while token == .and {
      try advance()
      left = .and(left, try parseComparison())
    }
    return left
  }

  private mutating func parseComparison() throws(ConditionParseError) -> ConditionExpression {
    var left = try parseUnary()
    while token == .equal || token == .notEqual {
      let isEqual = token == .equal
      try advance()
      let right = try parseUnary()
      left = isEqual ? .equal(left, right) : .notEqual(left, right)
    }
    return left
  }

  private mutating func parseUnary() throws(ConditionParseError) -> ConditionExpression {
    switch token {
    case .not:
      try deeper()
      defer { depth -= 1 }
      try advance()
      return .not(try parseUnary())
    case .open:
      let open = start
      try deeper()
      defer { depth -= 1 }
      try advance()
      let inner = try parseOr()
      guard token == .close else {
        throw ConditionParseError(
          offset: start, message: "missing ')' to close the '(' at offset \(open), found \(describe(token))")
      }
      try advance()
      return inner
    case .string(let text):
      try counted()
      try advance()
      return .literal(text)
    case .word(let word):
      try counted()
      let expression = try value(of: word, at: start)
      try advance()
      return expression
    default:
      throw ConditionParseError(offset: start, message: "expected a value, found \(describe(token))")
    }
  }

  private mutating func deeper() throws(ConditionParseError) {
    guard depth < Self.maximumDepth else {
      throw ConditionParseError(offset: start, message: "'(' and '!' nest more than \(Self.maximumDepth) deep")
    }
    depth += 1
  }

  private mutating func counted() throws(ConditionParseError) {
    values += 1
    guard values <= Self.maximumValues else {
      throw ConditionParseError(offset: start, message: "more than \(Self.maximumValues) values in one condition")
    }
  }

  /// A keyword or a reference.
  private func value(of word: String, at offset: Int) throws(ConditionParseError) -> ConditionExpression {
    if word == "true" || word == "false" { return .literal(word) }
    if let first = word.first, first.isNumber {
      throw ConditionParseError(offset: offset, message: "unexpected '\(word)'; write numbers as strings: '\(word)'")
    }
    func fail(_ message: String) -> ConditionParseError { ConditionParseError(offset: offset, message: message) }
    let roots = "'deps.', 'params.', 'env.', 'matrix.' or 'runner.'"
    guard let dot = word.firstIndex(of: ".") else {
      throw fail("unknown name '\(word)'; references start with \(roots)")
    }
    let rest = word[word.index(after: dot)...]
    switch word[..<dot] {
    case "deps":
      guard let marker = Self.lastRange(of: ".outputs.", in: rest) else {
        throw fail("'\(word)': expected 'deps.TASK.outputs.KEY'")
      }
      let task = rest[..<marker.lowerBound]
      let key = rest[marker.upperBound...]
      guard !task.isEmpty, !key.isEmpty else { throw fail("'\(word)': expected 'deps.TASK.outputs.KEY'") }
      guard key.allSatisfy({ $0.isLetter || $0.isNumber || "_-.".contains($0) }) else {
        throw fail("'\(word)': an output key may hold letters, digits, '_', '-' and '.'")
      }
      return .reference(.output(task: String(task), key: String(key)))
    case "params", "env", "matrix":
      guard let first = rest.first, first.isLetter || first == "_",
        rest.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
      else {
        throw fail("'\(word)': expected '\(word[..<dot]).NAME' (letters, digits, '_' and '-')")
      }
      let name = String(rest)
      switch word[..<dot] {
      case "params": return .reference(.param(name))
      case "env": return .reference(.env(name))
      default: return .reference(.matrix(name))
      }
    case "runner":
      guard RunnerPlatform.names.contains(String(rest)) else {
        throw fail(
          "'\(word)': expected 'runner.os', 'runner.arch', 'runner.exe_suffix', 'runner.root' or 'runner.args'")
      }
      return .reference(.runner(String(rest)))
    default:
      throw fail("unknown reference '\(word)'; references start with \(roots)")
    }
  }

  /// The last occurrence of `needle` in `text`.
  private static func lastRange(of needle: String, in text: Substring) -> Range<String.Index>? {
    var found: Range<String.Index>?
    var rest = text
    while let range = rest.firstRange(of: needle) {
      found = range
      rest = text[text.index(after: range.lowerBound)...]
    }
    return found
  }

  private func describe(_ token: Token) -> String {
    switch token {
    case .open: return "'('"
    case .close: return "')'"
    case .not: return "'!'"
    case .equal: return "'=='"
    case .notEqual: return "'!='"
    case .and: return "'&&'"
    case .or: return "'||'"
    case .string(let text): return "string '\(text)'"
    case .word(let word): return "'\(word)'"
    case .end: return "the end of the expression"
    }
  }

  // MARK: - Tokens

  /// Moves to the next token, setting `token` and `start`.
  private mutating func advance() throws(ConditionParseError) {
    while index < chars.count, chars[index].isWhitespace { index += 1 }
    start = index
    guard index < chars.count else {
      token = .end
      return
    }
    let char = chars[index]
    let next: Character? = index + 1 < chars.count ? chars[index + 1] : nil
    func fail(_ message: String) -> ConditionParseError { ConditionParseError(offset: index, message: message) }
    switch char {
    case "(": (token, index) = (.open, index + 1)
    case ")": (token, index) = (.close, index + 1)
    case "!" where next == "=": (token, index) = (.notEqual, index + 2)
    case "!": (token, index) = (.not, index + 1)
    case "=" where next == "=": (token, index) = (.equal, index + 2)
    case "=": throw fail("unexpected '='; use '==' to compare")
    case "&" where next == "&": (token, index) = (.and, index + 2)
    case "&": throw fail("unexpected '&'; use '&&'")
    case "|" where next == "|": (token, index) = (.or, index + 2)
    case "|": throw fail("unexpected '|'; use '||'")
    case "'", "\"": token = .string(try string(quote: char))
    default:
      guard Self.isWordCharacter(char) else { throw fail("unexpected character '\(char)'") }
      token = .word(try word())
    }
  }

  /// A quoted string; in single quotes `''` is one quote.
  private mutating func string(quote: Character) throws(ConditionParseError) -> String {
    let open = index
    index += 1
    var text = ""
    while index < chars.count {
      let char = chars[index]
      index += 1
      if char != quote {
        text.append(char)
      } else if quote == "'", index < chars.count, chars[index] == "'" {
        text.append("'")
        index += 1
      } else {
        return text
      }
    }
    throw ConditionParseError(offset: open, message: "unterminated string")
  }

  /// A keyword or dotted path; inside `[...]` (matrix task names) `=` and `,` belong to it too.
  private mutating func word() throws(ConditionParseError) -> String {
    let begin = index
    var bracket: Int?
    while index < chars.count {
      let char = chars[index]
      if let open = bracket {
        if char == "]" {
          bracket = nil
        } else if char.isWhitespace || "[()'\"".contains(char) {
          throw ConditionParseError(offset: open, message: "missing ']' to close this '['")
        }
      } else if char == "[" {
        bracket = index
      } else if !Self.isWordCharacter(char) {
        break
      }
      index += 1
    }
    if let open = bracket { throw ConditionParseError(offset: open, message: "missing ']' to close this '['") }
    return String(chars[begin..<index])
  }

  private static func isWordCharacter(_ char: Character) -> Bool {
    char.isLetter || char.isNumber || "_-.:".contains(char)
  }
}
