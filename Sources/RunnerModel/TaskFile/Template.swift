/// A string that may read dependencies' outputs, params, matrix values and other variables:
/// `prefix-${{ deps.build.outputs.tag }}`, `${{ params.mode }}`, `${KUBE_DIR}/talos`.
///
/// Values are substituted into the environment only, never into shell text, so an output
/// such as `$(rm -rf ~)` stays an inert string. Loading resolves everything but outputs
/// (`TaskFileExpander`); outputs are filled in when the task runs.
package struct Template: Sendable, Hashable, CustomStringConvertible {
  package enum Part: Sendable, Hashable {
    case literal(String)
    case output(task: String, key: String)
    case param(String)
    case matrix(String)
    case runner(String)
    /// `${NAME}`: another variable of the task's environment as loading knows it.
    case variable(String)
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
      case .param(let name): return "${{ params.\(name) }}"
      case .matrix(let name): return "${{ matrix.\(name) }}"
      case .runner(let name): return "${{ runner.\(name) }}"
      case .variable(let name): return "${\(name)}"
      }
    }.joined()
  }

  /// True when only outputs are left to fill in.
  package var isResolved: Bool {
    parts.allSatisfy {
      switch $0 {
      case .literal, .output: return true
      case .param, .matrix, .runner, .variable: return false
      }
    }
  }

  /// Fills in outputs; `lookup` returns nil for an output the dependency did not set (→ "").
  /// Anything unresolved renders empty.
  package func render(_ lookup: (String, String) -> String?) -> String {
    if parts.count == 1, case .literal(let text) = parts[0] { return text }
    return parts.map {
      switch $0 {
      case .literal(let text): return text
      case .output(let task, let key): return lookup(task, key) ?? ""
      case .param, .matrix, .runner, .variable: return ""
      }
    }.joined()
  }

  /// Replaces every part but outputs through `resolve` (which may return several parts), and
  /// merges adjacent literals.
  package func resolving(_ resolve: (Part) -> [Part]) -> Template {
    var result: [Part] = []
    for part in parts {
      let replaced: [Part]
      switch part {
      case .literal, .output: replaced = [part]
      case .param, .matrix, .runner, .variable: replaced = resolve(part)
      }
      for piece in replaced {
        if case .literal(let text) = piece, case .literal(let before)? = result.last {
          result[result.count - 1] = .literal(before + text)
        } else if case .literal(let text) = piece, text.isEmpty {
          continue
        } else {
          result.append(piece)
        }
      }
    }
    return Template(parts: result)
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

  /// Parses `${{ deps.NAME.outputs.KEY }}`, `${{ params.NAME }}`, `${{ matrix.NAME }}`,
  /// `${{ runner.os }}` and (with `variables`) `${NAME}` out of `text`; `$${` is a literal `${`.
  ///
  /// - Throws: `TaskFileError.malformedExpression` naming the expression and what is wrong.
  package static func parse(_ text: String, variables: Bool = false) throws(TaskFileError) -> Template {
    // The common case: nothing to parse.
    if !text.utf8.contains(UInt8(ascii: "$")) { return Template(parts: text.isEmpty ? [] : [.literal(text)]) }
    var parts: [Part] = []
    var rest = Substring(text)
    func literal(_ chunk: Substring) throws(TaskFileError) {
      guard variables else {
        parts.append(.literal(String(chunk)))
        return
      }
      do {
        for piece in try VariableText.parse(chunk).parts {
          switch piece {
          case .literal(let text): parts.append(.literal(text))
          case .variable(let name): parts.append(.variable(name))
          }
        }
      } catch {
        throw .malformedExpression(String(chunk), reason: error.message)
      }
    }
    while let open = rest.firstRange(of: "${{") {
      if variables, open.lowerBound > rest.startIndex, rest[rest.index(before: open.lowerBound)] == "$" {
        // `$${{`: a literal `${{`.
        try literal(rest[..<rest.index(before: open.lowerBound)])
        parts.append(.literal("${{"))
        rest = rest[open.upperBound...]
        continue
      }
      if open.lowerBound > rest.startIndex { try literal(rest[..<open.lowerBound]) }
      guard let close = rest[open.upperBound...].firstRange(of: "}}") else {
        throw .malformedExpression(String(rest[open.lowerBound...]), reason: "missing '}}'")
      }
      let whole = String(rest[open.lowerBound..<close.upperBound])
      let body = rest[open.upperBound..<close.lowerBound].trimmingSpaces()
      parts.append(try reference(body, whole: whole))
      rest = rest[close.upperBound...]
    }
    if !rest.isEmpty { try literal(rest) }
    return Template(parts: parts).resolving { [$0] }
  }

  private static func reference(_ body: Substring, whole: String) throws(TaskFileError) -> Part {
    let expected = "expected 'deps.TASK.outputs.KEY', 'params.NAME', 'matrix.NAME' or 'runner.NAME'"
    for (prefix, make) in [("params.", Part.param), ("matrix.", Part.matrix), ("runner.", Part.runner)] {
      guard body.hasPrefix(prefix) else { continue }
      let name = String(body.dropFirst(prefix.count))
      guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
        throw .malformedExpression(whole, reason: expected)
      }
      if prefix == "runner.", !RunnerPlatform.names.contains(name) {
        throw .malformedExpression(whole, reason: "'runner' has 'os', 'arch', 'exe_suffix', 'root' and 'args'")
      }
      return make(name)
    }
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
