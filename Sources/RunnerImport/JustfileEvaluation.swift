/// What an expression evaluates to in the import: its value when the import can know it (just
/// evaluates it the same way every run), else how the shell computes it when the command runs.
enum JustEvaluated: Sendable, Equatable {
  /// Known now: the elements (a string is one; with `set lists` a list holds any number).
  case known([String])
  /// One string, known only when the command runs.
  case word([JustPiece])
  /// A boolean known only when the command runs: a shell command that succeeds when it is true.
  case condition(String)
  /// The variadic parameter's words (`"$@"`).
  case arguments
  /// One string known only when the command runs, or `[]` when it is empty (`which()`).
  case optional([JustPiece])
}

/// A condition's truth: known now, or a shell command.
enum JustTruth: Sendable, Equatable {
  case known(Bool)
  case test(String)
}

extension JustfileConversion {
  /// Evaluates `expression` as far as the import can; what only the command can compute
  /// becomes shell text (`$(…)`, `[ … ]`); what neither can is a problem, reported.
  func evaluate(_ expression: JustExpression, _ scope: JustScope, _ notes: inout [String]) throws(JustValueProblem)
    -> JustEvaluated
  {
    switch expression {
    case .literal(let text):
      return .known([text])
    case .variable(let name):
      if name == scope.variadic { return .arguments }
      if scope.parameters[name] == nil, name != scope.variadic, case .inline(let inner) = bindings[name] {
        // A top-level variable's value reads top-level names, not the recipe's parameters.
        return try evaluate(inner, scope.outside, &notes)
      }
      return Self.evaluated(try variable(name, scope, &notes))
    case .backtick(let command):
      notes.append(
        "`…` becomes $(…): run by the command's shell each time the command runs (just runs it once, "
          + "with its shell, before the recipe)")
      return .word([.shell("$(\(command))")])
    case .other:
      return Self.evaluated(try pieces(expression, scope, &notes))
    case .call(let name, let arguments):
      if case .backtick(let command) = JustExpression.backtickForm(expression) {
        return try evaluate(.backtick(command), scope, &notes)
      }
      return try evaluateCall(name, arguments, scope, &notes)
    case .concatenation(let parts):
      var values: [JustEvaluated] = []
      for part in parts { values.append(try evaluate(part, scope, &notes)) }
      return try concatenated(values)
    case .format(let parts):
      var pieces: [JustPiece] = []
      for part in parts { pieces += self.pieces(of: try evaluate(part, scope, &notes)) }
      return Self.evaluated(pieces)
    case .conditional(let condition, let then, let otherwise):
      switch try truth(of: condition, scope, &notes) {
      case .known(let isTrue):
        guard isTrue else {
          return try otherwise.map { e throws(JustValueProblem) in try evaluate(e, scope, &notes) } ?? .known([])
        }
        return try evaluate(then, scope, &notes)
      case .test(let test):
        let yes = try evaluate(then, scope, &notes)
        let no = try otherwise.map { e throws(JustValueProblem) in try evaluate(e, scope, &notes) } ?? .known([])
        return .word([.shell("$(if \(test); then \(try printing(yes, &notes)); else \(try printing(no, &notes)); fi)")])
      }
    case .comparison(let operation, let left, let right):
      return try compare(operation, try evaluate(left, scope, &notes), try evaluate(right, scope, &notes), &notes)
    case .or(let left, let right):
      let first = try evaluate(left, scope, &notes)
      switch try truth(of: first) {
      case .known(true): return first
      case .known(false): return try evaluate(right, scope, &notes)
      case .test(let test):
        let second = try evaluate(right, scope, &notes)
        guard case .condition = first else {
          return .word([
            .shell("$(if \(test); then \(try printing(first, &notes)); else \(try printing(second, &notes)); fi)")
          ])
        }
        if case .condition(let other) = second { return .condition("{ \(test); } || { \(other); }") }
        return .word([.shell("$(if \(test); then printf true; else \(try printing(second, &notes)); fi)")])
      }
    case .and(let left, let right):
      let first = try evaluate(left, scope, &notes)
      switch try truth(of: first) {
      case .known(true): return try evaluate(right, scope, &notes)
      case .known(false): return .known([])
      case .test(let test):
        let second = try evaluate(right, scope, &notes)
        if case .condition(let other) = second { return .condition("{ \(test); } && { \(other); }") }
        return .word([.shell("$(if \(test); then \(try printing(second, &notes)); fi)")])
      }
    case .not(let operand):
      switch try truth(of: try evaluate(operand, scope, &notes)) {
      case .known(let isTrue): return .known(JustFunctions.boolean(!isTrue, lists: settings.lists))
      case .test(let test): return .condition("! { \(test); }")
      }
    case .list(let items):
      var elements: [String] = []
      for item in items {
        guard case .known(let known) = try evaluate(item, scope, &notes) else {
          throw .notCarried("a list holding values known only when the command runs has no equivalent in runner")
        }
        elements += known
      }
      return .known(elements)
    case .listConcatenation(let left, let right):
      guard case .known(let first) = try evaluate(left, scope, &notes),
        case .known(let second) = try evaluate(right, scope, &notes)
      else { throw .notCarried("'++' of values known only when the command runs has no equivalent in runner") }
      return .known(first + second)
    }
  }

  /// Pieces that are all text are known now.
  static func evaluated(_ pieces: [JustPiece]) -> JustEvaluated {
    if pieces == [.arguments] { return .arguments }
    if let text = plainText(pieces) { return .known([text]) }
    return .word(pieces)
  }

  /// The value where a string stands (an interpolation, a concatenation): lists joined with spaces.
  func pieces(of value: JustEvaluated) -> [JustPiece] {
    switch value {
    case .known(let elements): return [.text(elements.joined(separator: " "))]
    case .word(let pieces): return pieces
    case .condition(let test):
      return [.shell("$(if \(test); then printf true; \(settings.lists ? "" : "else printf false; ")fi)")]
    case .arguments: return [.arguments]
    case .optional(let pieces): return pieces
    }
  }

  /// `printf '%s' VALUE` (nothing for the empty list), for a branch of a `$(if …)`.
  func printing(_ value: JustEvaluated, _ notes: inout [String]) throws(JustValueProblem) -> String {
    if case .known(let elements) = value {
      if elements.isEmpty { return ":" }
      let text = elements.joined(separator: " ")
      if !Self.isPlainWords(text) {
        notes.append("the value is chosen when the command runs, as one expanded word: shell syntax in it is not run")
      }
    }
    return "printf '%s' " + (try Self.quotedWord(pieces(of: value)))
  }

  /// The truth of a value: with `set lists` only `[]` is false (`''` is true), as in just.
  func truth(of value: JustEvaluated) throws(JustValueProblem) -> JustTruth {
    switch value {
    case .known(let elements): return .known(!elements.isEmpty)
    case .word: return .known(true)
    case .condition(let test): return .test(test)
    case .arguments: return settings.lists ? .test("[ \"$#\" -gt 0 ]") : .known(true)
    case .optional(let pieces): return .test("[ -n \(try Self.quotedWord(pieces)) ]")
    }
  }

  /// A condition's truth: a comparison is true or false as such (without `set lists` its value
  /// is the text `"false"`, which as a value would be true).
  func truth(of expression: JustExpression, _ scope: JustScope, _ notes: inout [String]) throws(JustValueProblem)
    -> JustTruth
  {
    let value = try evaluate(expression, scope, &notes)
    if case .comparison = expression, case .known(let elements) = value { return .known(elements == ["true"]) }
    return try truth(of: value)
  }

  /// `==`, `!=`, `=~`, `!~`: known now when both sides are, else a `[ … ]` or `grep` test.
  func compare(_ operation: String, _ left: JustEvaluated, _ right: JustEvaluated, _ notes: inout [String])
    throws(JustValueProblem) -> JustEvaluated
  {
    if case .known(let first) = left, case .known(let second) = right {
      let result: Bool
      switch operation {
      case "==": result = first == second
      case "!=": result = first != second
      default:
        var regexes: [Regex<AnyRegexOutput>] = []
        for pattern in second {
          guard let regex = try? Regex(pattern) else {
            throw .notCarried("the regular expression '\(pattern)' is not one runner import can read")
          }
          regexes.append(regex)
        }
        let matched = first.contains { element in regexes.contains { element.contains($0) } }
        result = operation == "=~" ? matched : !matched
        notes.append("decided at import with Swift's regular expressions (just: Rust's regex crate)")
      }
      return .known(JustFunctions.boolean(result, lists: settings.lists))
    }
    for side in [left, right] {
      if case .arguments = side, settings.lists {
        throw .notCarried("comparing the variadic parameter's list has no equivalent in runner")
      }
    }
    let first = try Self.quotedWord(pieces(of: left))
    let second = try Self.quotedWord(pieces(of: right))
    switch operation {
    case "==": return .condition("[ \(first) = \(second) ]")
    case "!=": return .condition("[ \(first) != \(second) ]")
    default:
      notes.append("matched when the command runs by grep -E, line by line (just: Rust's regex crate, whole value)")
      let test = "printf '%s\\n' \(first) | grep -Eq -- \(second)"
      return .condition(operation == "=~" ? test : "! \(test)")
    }
  }

  /// `a + b`, `a / b`: element by element (a one-element side against each of the other's),
  /// as just combines values; known now when every part is.
  func concatenated(_ values: [JustEvaluated]) throws(JustValueProblem) -> JustEvaluated {
    var known: [String]? = [""]
    var pieces: [JustPiece] = []
    for value in values {
      if case .known(let elements) = value, let sofar = known {
        switch (sofar.count, elements.count) {
        case (1, _): known = elements.map { sofar[0] + $0 }
        case (_, 1): known = sofar.map { $0 + elements[0] }
        case let (m, n) where m == n: known = zip(sofar, elements).map { $0 + $1 }
        default: throw .notCarried("just stops: the lists joined here have different lengths")
        }
        continue
      }
      if let sofar = known {
        guard sofar.count == 1 else { throw .notCarried("a list joined with a value known only when the command runs") }
        pieces.append(.text(sofar[0]))
        known = nil
      }
      if case .known(let elements) = value, elements.count != 1 {
        throw .notCarried("a list joined with a value known only when the command runs")
      }
      if case .arguments = value, settings.lists {
        throw .notCarried("joining text to each of the variadic parameter's words has no equivalent in runner")
      }
      pieces += self.pieces(of: value)
    }
    if let known { return .known(known) }
    return Self.evaluated(pieces)
  }

  /// The value as one shell word, quoted: text in single quotes, the rest in double quotes.
  static func quotedWord(_ pieces: [JustPiece]) throws(JustValueProblem) -> String {
    var out = ""
    for piece in pieces {
      switch piece {
      case .text(let text): out += text.isEmpty ? "" : TasksFileWriter.shellQuoted(text)
      case .variable(let name), .parameter(let name): out += "\"${\(name)}\""
      case .shell(let expansion): out += "\"\(expansion)\""
      case .arguments: out += "\"$*\""
      case .quotedWord, .quotedArguments:
        throw .notCarried("quote() of a value known only when the command runs, inside a condition")
      }
    }
    return out.isEmpty ? "''" : out
  }
}
