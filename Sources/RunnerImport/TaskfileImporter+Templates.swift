/// Small readers of go-task template text.
extension TaskfileImporter {
  /// `.X | default "y"` or `default "y" .X`: X and y, when y needs no quoting inside `${X:-y}`.
  static func defaulted(_ inner: Substring) -> (String, String)? {
    let parts = inner.split(separator: "|").map { $0.trimmingSpaces() }
    var name: Substring
    var call: Substring
    if parts.count == 2, parts[0].hasPrefix(".") {
      name = parts[0].dropFirst()
      call = parts[1]
    } else if parts.count == 1, parts[0].hasPrefix("default "), let dot = parts[0].lastIndex(of: ".") {
      name = parts[0][parts[0].index(after: dot)...]
      call = parts[0][..<dot].trimmingSpaces()
    } else {
      return nil
    }
    guard isName(name), call.hasPrefix("default ") else { return nil }
    let literal = call.dropFirst("default ".count).trimmingSpaces()
    guard literal.count >= 2, literal.first == "\"", literal.last == "\"" else { return nil }
    let value = literal.dropFirst().dropLast()
    guard value.allSatisfy({ $0.isLetter || $0.isNumber || " ._-/:,=+@%".contains($0) }) else { return nil }
    return (String(name), String(value))
  }

  /// A template variable's name: a letter or `_`, then letters, digits and `_`.
  static func isName(_ text: Substring) -> Bool {
    guard let first = text.first, first.isLetter || first == "_" else { return false }
    return text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
  }
}

extension Substring {
  func trimmingSpaces() -> Substring {
    var result = self
    while result.first?.isWhitespace == true { result.removeFirst() }
    while result.last?.isWhitespace == true { result.removeLast() }
    return result
  }
}
