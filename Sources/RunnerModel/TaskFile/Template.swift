/// A string that may read dependencies' outputs: `prefix-${{ deps.build.outputs.tag }}`.
///
/// Values are substituted into the environment only, never into shell text, so an output
/// such as `$(rm -rf ~)` stays an inert string.
package struct Template: Sendable, Hashable, CustomStringConvertible {
  package enum Part: Sendable, Hashable {
    case literal(String)
    case output(task: String, key: String)
  }

  package var parts: [Part]

  package init(parts: [Part]) { self.parts = parts }

  /// The outputs it reads, in order.
  package var references: [(task: String, key: String)] {
    parts.compactMap {
      if case .output(let task, let key) = $0 { return (task, key) }
      return nil
    }
  }

  package var description: String {
    parts.map {
      switch $0 {
      case .literal(let text): return text
      case .output(let task, let key): return "${{ deps.\(task).outputs.\(key) }}"
      }
    }.joined()
  }

  /// Fills in outputs; `lookup` returns nil for an output the dependency did not set (→ "").
  package func render(_ lookup: (String, String) -> String?) -> String {
    parts.map {
      switch $0 {
      case .literal(let text): return text
      case .output(let task, let key): return lookup(task, key) ?? ""
      }
    }.joined()
  }

  /// True if `text` holds an expression opener at all (used to reject them outside `env`).
  package static func containsExpression(_ text: String) -> Bool {
    // A byte scan: every task's command goes through here, and `String.contains` is slow.
    var previous: (UInt8, UInt8) = (0, 0)
    for byte in text.utf8 {
      if byte == UInt8(ascii: "{"), previous == (UInt8(ascii: "$"), UInt8(ascii: "{")) { return true }
      previous = (previous.1, byte)
    }
    return false
  }

  /// Parses `${{ deps.NAME.outputs.KEY }}` expressions out of `text`.
  ///
  /// - Throws: `TaskFileError.malformedExpression` naming the expression and what is wrong.
  package static func parse(_ text: String) throws(TaskFileError) -> Template {
    var parts: [Part] = []
    var rest = Substring(text)
    while let open = rest.firstRange(of: "${{") {
      if open.lowerBound > rest.startIndex { parts.append(.literal(String(rest[..<open.lowerBound]))) }
      guard let close = rest[open.upperBound...].firstRange(of: "}}") else {
        throw .malformedExpression(String(rest[open.lowerBound...]), reason: "missing '}}'")
      }
      let whole = String(rest[open.lowerBound..<close.upperBound])
      let body = rest[open.upperBound..<close.lowerBound].trimmingSpaces()
      parts.append(try reference(body, whole: whole))
      rest = rest[close.upperBound...]
    }
    if !rest.isEmpty { parts.append(.literal(String(rest))) }
    return Template(parts: parts)
  }

  private static func reference(_ body: Substring, whole: String) throws(TaskFileError) -> Part {
    let expected = "expected 'deps.TASK.outputs.KEY'"
    guard body.hasPrefix("deps.") else { throw .malformedExpression(whole, reason: expected) }
    let path = body.dropFirst("deps.".count)
    guard let marker = path.lastRange(of: ".outputs.") else {
      throw .malformedExpression(whole, reason: expected)
    }
    let task = String(path[..<marker.lowerBound])
    let key = String(path[marker.upperBound...])
    guard !task.isEmpty, !key.isEmpty else { throw .malformedExpression(whole, reason: expected) }
    guard key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }) else {
      throw .malformedExpression(whole, reason: "output key '\(key)' may hold letters, digits, '_', '-' and '.'")
    }
    return .output(task: task, key: key)
  }
}

extension Substring {
  func trimmingSpaces() -> Substring {
    var result = self
    while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
    while let last = result.last, last == " " || last == "\t" { result.removeLast() }
    return result
  }
}

extension Substring {
  /// The last occurrence of `needle` (the stdlib has only `firstRange(of:)`).
  func lastRange(of needle: String) -> Range<Index>? {
    var found: Range<Index>?
    var rest = self[...]
    while let range = rest.firstRange(of: needle) {
      found = range
      rest = rest[index(after: range.lowerBound)...]
    }
    return found
  }
}
