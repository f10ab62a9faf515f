/// An expression of a justfile — a variable's value, a parameter's default, a dependency's
/// argument, an interpolation — reduced to what the import can carry; anything else is kept
/// as written (`other`), for the report.
indirect enum JustExpression: Sendable, Equatable {
  /// A string literal, escapes processed and indented strings unindented.
  case literal(String)
  /// A variable or parameter name.
  case variable(String)
  /// `` `command` ``: the command's output.
  case backtick(String)
  /// `name(arguments)`.
  case call(String, [JustExpression])
  /// `a + b`, `a / b` (with a `/` literal between): element by element for lists.
  case concatenation([JustExpression])
  /// `f'…{{x}}…'`: the pieces, each value joined with spaces.
  case format([JustExpression])
  /// `if condition { then } else { otherwise }` (`else if` nests; no `else` with `set lists`).
  case conditional(JustExpression, JustExpression, JustExpression?)
  /// `a == b`, `a != b`, `a =~ b`, `a !~ b`.
  case comparison(String, JustExpression, JustExpression)
  /// `a || b`, `a && b` (`set lists`).
  case or(JustExpression, JustExpression)
  case and(JustExpression, JustExpression)
  /// `!a` (`set lists`).
  case not(JustExpression)
  /// `[a, b]` (`set lists`): flattened.
  case list([JustExpression])
  /// `a ++ b` (`set lists`).
  case listConcatenation(JustExpression, JustExpression)
  /// Anything else (`x'…'`, `assert`, `a::b`, triple-quoted format strings), as written.
  case other(String)

  /// The expression as just would print it, for report entries.
  var source: String {
    switch self {
    case .literal(let text): return text.contains("\"") ? "'\(text)'" : "\"\(text)\""
    case .variable(let name): return name
    case .backtick(let command): return "`\(command)`"
    case .call(let name, let arguments): return "\(name)(\(arguments.map(\.source).joined(separator: ", ")))"
    case .concatenation(let parts): return parts.map(\.source).joined(separator: " + ")
    case .format(let parts):
      return "f'" + parts.map { if case .literal(let text) = $0 { text } else { "{{\($0.source)}}" } }.joined() + "'"
    case .conditional(let condition, let then, let otherwise):
      return "if \(condition.source) { \(then.source) }" + (otherwise.map { " else { \($0.source) }" } ?? "")
    case .comparison(let operation, let left, let right): return "\(left.source) \(operation) \(right.source)"
    case .or(let left, let right): return "\(left.source) || \(right.source)"
    case .and(let left, let right): return "\(left.source) && \(right.source)"
    case .not(let operand): return "!\(operand.source)"
    case .list(let items): return "[" + items.map(\.source).joined(separator: ", ") + "]"
    case .listConcatenation(let left, let right): return "\(left.source) ++ \(right.source)"
    case .other(let text): return text
    }
  }
}

/// A syntax error at a character offset of the text being scanned.
struct JustSyntaxError: Error, Sendable {
  var message: String
  var offset: Int
}

/// Reads just's tokens from an array of characters: names, strings, expressions. Inside
/// parentheses and braces, line breaks count as blanks (just allows expressions to span lines
/// there).
struct JustScanner {
  let characters: [Character]
  var position: Int
  /// Open parentheses and braces.
  var depth = 0
  /// Expressions under way, one inside another (each operator nests one, as the grammar is
  /// right-recursive): bounded, so a deep or long expression is an error and not a crash.
  var nesting = 0
  static let maximumNesting = 256
  /// Whether `#` starts a comment inside parentheses (not inside an interpolation's braces).
  var allowsComments = true

  init(_ characters: [Character], at position: Int = 0) {
    self.characters = characters
    self.position = position
  }

  var current: Character? { position < characters.count ? characters[position] : nil }

  var atEnd: Bool { position >= characters.count }

  func character(at offset: Int) -> Character? {
    position + offset < characters.count ? characters[position + offset] : nil
  }

  /// True when the text at the position starts with `text`.
  func looks(at text: String) -> Bool {
    var index = position
    for character in text {
      guard index < characters.count, characters[index] == character else { return false }
      index += 1
    }
    return true
  }

  /// Takes `text` if the position starts with it.
  mutating func accept(_ text: String) -> Bool {
    guard looks(at: text) else { return false }
    position += text.count
    return true
  }

  /// Skips spaces and tabs, and line breaks and comments inside parentheses.
  mutating func skipBlanks() {
    while let character = current {
      if character == " " || character == "\t" || character == "\r" {
        position += 1
      } else if character == "\\", position + 1 < characters.count,
        characters[position + 1] == "\n"
          || (characters[position + 1] == "\r" && position + 2 < characters.count
            && characters[position + 2] == "\n")
      {
        // `\` at the end of a line continues it, as just reads it outside recipe bodies.
        position += characters[position + 1] == "\n" ? 2 : 3
      } else if depth > 0, character == "\n" {
        position += 1
      } else if depth > 0, allowsComments, character == "#" {
        while let next = current, next != "\n" { position += 1 }
      } else {
        return
      }
    }
  }

  /// The text from `start` to the position.
  func text(from start: Int) -> String {
    String(characters[start..<max(start, min(position, characters.count))])
  }

  /// A letter or `_`: what a name starts with.
  static func isNameStart(_ character: Character) -> Bool {
    character.isASCII && (character.isLetter || character == "_")
  }

  /// A letter, digit, `_` or `-`.
  static func isNameCharacter(_ character: Character) -> Bool {
    character.isASCII && (character.isLetter || character.isNumber || character == "_" || character == "-")
  }

  /// A name (`[a-zA-Z_][a-zA-Z0-9_-]*`), or nil (nothing taken).
  mutating func name() -> String? {
    guard let first = current, Self.isNameStart(first) else { return nil }
    let start = position
    while let character = current, Self.isNameCharacter(character) { position += 1 }
    return text(from: start)
  }

  /// True when the position holds the keyword `word`, not a longer name.
  func looks(atKeyword word: String) -> Bool {
    guard looks(at: word) else { return false }
    guard let after = character(at: word.count) else { return true }
    return !Self.isNameCharacter(after)
  }

  func error(_ message: String) -> JustSyntaxError { JustSyntaxError(message: message, offset: position) }
}

// MARK: - Expressions

extension JustScanner {
  /// One more expression under way inside another; an error past `maximumNesting`.
  mutating func enter() throws(JustSyntaxError) {
    guard nesting < Self.maximumNesting else {
      throw error("an expression nested more than \(Self.maximumNesting) deep (operators, parentheses, '!')")
    }
    nesting += 1
  }

  /// `expression : disjunct ('||' expression)?`
  mutating func expression() throws(JustSyntaxError) -> JustExpression {
    try enter()
    defer { nesting -= 1 }
    let first = try disjunct()
    skipBlanks()
    guard accept("||") else { return first }
    skipBlanks()
    return .or(first, try expression())
  }

  /// `disjunct : comparison ('&&' disjunct)?`
  mutating func disjunct() throws(JustSyntaxError) -> JustExpression {
    try enter()
    defer { nesting -= 1 }
    let first = try comparison()
    skipBlanks()
    guard accept("&&") else { return first }
    skipBlanks()
    return .and(first, try disjunct())
  }

  /// `comparison : conjunct (('==' | '!=' | '=~' | '!~') conjunct)?`
  mutating func comparison() throws(JustSyntaxError) -> JustExpression {
    let first = try conjunct()
    skipBlanks()
    guard let operation = ["==", "!=", "=~", "!~"].first(where: { looks(at: $0) }) else { return first }
    position += 2
    skipBlanks()
    return .comparison(operation, first, try conjunct())
  }

  /// `conjunct : conditional | '/' conjunct | value (('+' | '++' | '/') conjunct)?`
  mutating func conjunct() throws(JustSyntaxError) -> JustExpression {
    try enter()
    defer { nesting -= 1 }
    let start = position
    if looks(atKeyword: "if") { return try conditional() }
    if accept("/") {
      skipBlanks()
      return .concatenation([.literal("/"), try conjunct()])
    }
    let first = try value()
    skipBlanks()
    if accept("++") {
      skipBlanks()
      return .listConcatenation(first, try conjunct())
    }
    if looks(at: "+") || looks(at: "/") {
      let slash = current == "/"
      position += 1
      skipBlanks()
      let rest = try conjunct()
      if case .other = rest { return .other(text(from: start)) }
      if case .other = first { return .other(text(from: start)) }
      return .concatenation(slash ? [first, .literal("/"), rest] : [first, rest])
    }
    return first
  }

  /// `'if' expression '{' expression '}' ('else' (conditional | '{' expression '}'))?`
  mutating func conditional() throws(JustSyntaxError) -> JustExpression {
    try enter()
    defer { nesting -= 1 }
    position += 2
    skipBlanks()
    let condition = try expression()
    let then = try braced()
    skipBlanks()
    guard looks(atKeyword: "else") else { return .conditional(condition, then, nil) }
    position += 4
    skipBlanks()
    if looks(atKeyword: "if") { return .conditional(condition, then, try conditional()) }
    return .conditional(condition, then, try braced())
  }

  /// `'{' expression '}'`
  mutating func braced() throws(JustSyntaxError) -> JustExpression {
    skipBlanks()
    guard accept("{") else { throw error("expected '{'") }
    depth += 1
    skipBlanks()
    let inner = try expression()
    skipBlanks()
    depth -= 1
    guard accept("}") else { throw error("expected '}'") }
    return inner
  }

  /// A value: a string, a backtick, a name, a call, a list, a parenthesized expression, `!value`.
  mutating func value() throws(JustSyntaxError) -> JustExpression {
    let start = position
    guard let character = current else { throw error("expected an expression") }
    switch character {
    case "!":
      position += 1
      skipBlanks()
      try enter()
      defer { nesting -= 1 }
      return .not(try value())
    case "'", "\"":
      return .literal(try string())
    case "`":
      return .backtick(try backtick())
    case "(":
      return try group()
    case "[":
      return .list(try list())
    default:
      break
    }
    if (character == "x" || character == "f"), let quote = self.character(at: 1), quote == "'" || quote == "\"" {
      position += 1
      if character == "f" { return try formatString() }
      _ = try string()
      return .other(text(from: start))
    }
    if looks(atKeyword: "assert") {
      _ = name()
      skipBlanks()
      guard looks(at: "(") else { throw error("expected '(' after 'assert'") }
      let arguments = try sequence()
      // A keyword, not a function: a condition and a message (the importer reads a call).
      return arguments.count == 2 ? .call("assert", arguments) : .other(text(from: start))
    }
    guard let name = name() else { throw error("expected an expression, found '\(character)'") }
    if looks(at: "(") { return .call(name, try sequence()) }
    if looks(at: "::") {
      while accept("::") { _ = self.name() }
      return .other(text(from: start))
    }
    return .variable(name)
  }

  /// `'(' expression ')'`
  mutating func group() throws(JustSyntaxError) -> JustExpression {
    position += 1
    depth += 1
    skipBlanks()
    let inner = try expression()
    skipBlanks()
    depth -= 1
    guard accept(")") else { throw error("expected ')'") }
    return inner
  }

  /// `'[' (expression (',' expression)* ','?)? ']'`
  mutating func list() throws(JustSyntaxError) -> [JustExpression] {
    position += 1
    depth += 1
    skipBlanks()
    var items: [JustExpression] = []
    while !accept("]") {
      items.append(try expression())
      skipBlanks()
      if accept(",") {
        skipBlanks()
      } else if !looks(at: "]") {
        throw error("expected ',' or ']'")
      }
    }
    depth -= 1
    return items
  }

  /// `'(' (expression (',' expression)* ','?)? ')'`: a call's arguments.
  mutating func sequence() throws(JustSyntaxError) -> [JustExpression] {
    position += 1
    depth += 1
    skipBlanks()
    var arguments: [JustExpression] = []
    while !accept(")") {
      guard !atEnd else { throw error("expected ')'") }
      arguments.append(try expression())
      skipBlanks()
      if accept(",") {
        skipBlanks()
      } else if !looks(at: ")") {
        throw error("expected ',' or ')'")
      }
    }
    depth -= 1
    return arguments
  }
}

// MARK: - Strings

extension JustExpression {
  /// `shell(command, args…)` with plain-text arguments as the backtick it amounts to: just runs
  /// `sh -cu command command args…`, so the words are `$1`… (`$0` is the shell's own here).
  static func backtickForm(_ expression: JustExpression) -> JustExpression {
    guard case .call("shell", let arguments) = expression, let first = arguments.first else { return expression }
    var words: [String] = []
    for argument in arguments {
      guard case .literal(let text) = argument else { return expression }
      words.append(text)
    }
    guard case .literal(let command) = first else { return expression }
    guard words.count > 1 else { return .backtick(command) }
    let set = "set -- " + words.dropFirst().map(TasksFileWriter.shellQuoted).joined(separator: " ")
    return .backtick(set + "; " + command)
  }
}
