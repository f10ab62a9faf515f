/// go-task's template conditions — `eq`, `ne`, `and`, `or`, `not` over vars and string
/// literals — as shell tests.
extension TaskfileImporter {
  /// The shell test for `{{ eq .A "x" }}`, `{{ and (eq .A "x") (ne .B "y") }}` …, or nil when
  /// `inner` is no such condition. `operand` gives a var's value as one quoted shell word.
  static func condition(_ inner: Substring, operand: (String) -> String?) -> String? {
    let tokens = conditionTokens(inner)
    guard let tokens, !tokens.isEmpty else { return nil }
    var position = 0
    guard let test = call(tokens, &position, operand), position == tokens.count else { return nil }
    return test
  }

  /// Words, quoted strings and parentheses.
  static func conditionTokens(_ text: Substring) -> [String]? {
    var tokens: [String] = []
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      if character == " " || character == "\t" {
        index = text.index(after: index)
      } else if character == "(" || character == ")" {
        tokens.append(String(character))
        index = text.index(after: index)
      } else if character == "\"" {
        guard let close = text[text.index(after: index)...].firstIndex(of: "\"") else { return nil }
        let literal = text[index...close]
        guard !literal.dropFirst().dropLast().contains("\\") else { return nil }
        tokens.append(String(literal))
        index = text.index(after: close)
      } else {
        var end = index
        while end < text.endIndex, !" \t()\"".contains(text[end]) { end = text.index(after: end) }
        tokens.append(String(text[index..<end]))
        index = end
      }
    }
    return tokens
  }

  /// `FUNCTION ARGUMENT…`: `eq`/`ne` of values, `and`/`or`/`not` of conditions.
  static func call(_ tokens: [String], _ position: inout Int, _ operand: (String) -> String?) -> String? {
    guard position < tokens.count else { return nil }
    let function = tokens[position]
    position += 1
    switch function {
    case "eq", "ne":
      var values: [String] = []
      while position < tokens.count, tokens[position] != ")" {
        guard let value = value(tokens[position], operand) else { return nil }
        values.append(value)
        position += 1
      }
      guard values.count >= 2 else { return nil }
      if function == "ne" {
        guard values.count == 2 else { return nil }
        return "[ \(values[0]) != \(values[1]) ]"
      }
      // go's eq with more arguments: equal to any of them.
      return values.dropFirst().map { "[ \(values[0]) = \($0) ]" }.joined(separator: " || ")
    case "and", "or", "not":
      var tests: [String] = []
      while position < tokens.count, tokens[position] != ")" {
        guard tokens[position] == "(" else { return nil }
        position += 1
        guard let test = call(tokens, &position, operand), position < tokens.count, tokens[position] == ")" else {
          return nil
        }
        position += 1
        tests.append("{ \(test); }")
      }
      if function == "not" { return tests.count == 1 ? "! \(tests[0])" : nil }
      guard tests.count >= 2 else { return nil }
      return tests.joined(separator: function == "and" ? " && " : " || ")
    default:
      return nil
    }
  }

  /// `.NAME` through `operand`, `"text"` quoted.
  static func value(_ token: String, _ operand: (String) -> String?) -> String? {
    if token.hasPrefix("\""), token.count >= 2 { return quoted(String(token.dropFirst().dropLast())) }
    guard token.hasPrefix("."), isName(token.dropFirst()) else { return nil }
    return operand(String(token.dropFirst()))
  }
}
