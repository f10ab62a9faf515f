/// Reads typed values out of YAML nodes, collecting a precise error for each mismatch.
///
/// Each reader returns nil after recording a diagnostic, so one pass reports every problem.
struct SchemaReader {
  var diagnostics: [Diagnostic] = []

  mutating func fail(_ error: TaskFileError, at node: YAMLNode, notes: [Diagnostic] = []) {
    diagnostics.append(.error(error, at: node.location, notes: notes))
  }

  mutating func fail(_ error: TaskFileError, at location: SourceLocation) {
    diagnostics.append(.error(error, at: location))
  }

  mutating func wrongType(_ what: String, expected: String, _ node: YAMLNode) {
    fail(.wrongType(what: what, expected: expected, found: node.kindName), at: node)
  }

  /// The entries of a mapping, each key checked against `allowed`.
  /// A key another tool's format uses (`equivalents`) gets runner's equivalent instead of the
  /// nearest spelling.
  mutating func mapping(
    _ node: YAMLNode, what: @autoclosure () -> String, allowed: [String]? = nil, place: String? = nil,
    equivalents: [String: String] = [:]
  )
    -> [YAMLEntry]?
  {
    guard case .mapping(let entries) = node.kind else {
      wrongType(what(), expected: "a mapping", node)
      return nil
    }
    if let allowed {
      for entry in entries where !allowed.contains(entry.name) {
        if let equivalent = equivalents[entry.name] {
          fail(.foreignKey(entry.name, in: place ?? what(), equivalent: equivalent), at: entry.key)
          continue
        }
        fail(
          .unknownKey(entry.name, in: place ?? what(), suggestion: Suggestion.closest(to: entry.name, in: allowed)),
          at: entry.key)
      }
    }
    return entries
  }

  mutating func string(_ node: YAMLNode, what: @autoclosure () -> String) -> String? {
    guard case .scalar(let text, _) = node.kind, !node.isNull else {
      wrongType(what(), expected: "a string", node)
      return nil
    }
    return text
  }

  /// A list of strings; a single string stands for a list of one.
  mutating func strings(_ node: YAMLNode, what: @autoclosure () -> String, expected: String = "a list of strings")
    -> [(String, SourceLocation)]?
  {
    switch node.kind {
    case .scalar(let text, _) where !node.isNull:
      return [(text, node.location)]
    case .sequence(let items):
      var result: [(String, SourceLocation)] = []
      for item in items {
        guard case .scalar(let text, _) = item.kind, !item.isNull else {
          fail(.wrongType(what: what(), expected: expected, found: "\(item.kindName) in the list"), at: item)
          return nil
        }
        result.append((text, item.location))
      }
      return result
    default:
      wrongType(what(), expected: expected, node)
      return nil
    }
  }

  mutating func integer(_ node: YAMLNode, what: @autoclosure () -> String, range: ClosedRange<Int>) -> Int? {
    guard let text = node.scalar, let value = Int(text) else {
      fail(.wrongType(what: what(), expected: "a whole number", found: node.quotedOrKind), at: node)
      return nil
    }
    guard range.contains(value) else {
      fail(
        .invalidValue(
          what: what(), reason: "must be between \(range.lowerBound) and \(range.upperBound), found \(value)"), at: node
      )
      return nil
    }
    return value
  }

  mutating func number(_ node: YAMLNode, what: @autoclosure () -> String, range: ClosedRange<Double>) -> Double? {
    guard let text = node.scalar, let value = Double(text), value.isFinite else {
      fail(.wrongType(what: what(), expected: "a number", found: node.quotedOrKind), at: node)
      return nil
    }
    guard range.contains(value) else {
      fail(
        .invalidValue(
          what: what(), reason: "must be between \(range.lowerBound) and \(range.upperBound), found \(text)"),
        at: node)
      return nil
    }
    return value
  }

  mutating func boolean(_ node: YAMLNode, what: @autoclosure () -> String) -> Bool? {
    switch node.scalar?.lowercased() {
    case "true", "yes", "on": return true
    case "false", "no", "off": return false
    default:
      fail(.wrongType(what: what(), expected: "true or false", found: node.quotedOrKind), at: node)
      return nil
    }
  }

  /// A time limit: `90s`, `5m`, `1h30m`, `250ms`, or a bare number of seconds; `0` in any unit
  /// (`0`, `0s`, `0ms`) means no limit and reads as `.zero` (one rule for every timeout).
  mutating func timeLimit(_ node: YAMLNode, what: @autoclosure () -> String) -> Duration? {
    guard let text = node.scalar, let value = Self.parseDuration(text) else {
      fail(
        .wrongType(
          what: what(), expected: "a duration such as 90s, 5m or 250ms (0 for no limit)", found: node.quotedOrKind),
        at: node)
      return nil
    }
    // `0.4ms` is a limit, not "none": only a written zero is.
    if value == .zero, text.contains(where: { ("1"..."9").contains($0) }) { return .milliseconds(1) }
    return value
  }

  /// Durations above this (about 31 years) are refused rather than overflowing.
  static let maximumSeconds = 1e9

  static func parseDuration(_ text: String) -> Duration? {
    if let seconds = Double(text) {
      guard seconds >= 0, seconds < maximumSeconds else { return nil }
      return .milliseconds(Int64((seconds * 1000).rounded()))
    }
    var total = 0.0
    var number = ""
    var unit = ""
    func flush() -> Bool {
      guard let value = Double(number), value >= 0 else { return false }
      let scale: Double
      switch unit {
      case "ms": scale = 0.001
      case "s": scale = 1
      case "m": scale = 60
      case "h": scale = 3600
      default: return false
      }
      total += value * scale
      number = ""
      unit = ""
      return true
    }
    for character in text {
      if character.isNumber || character == "." {
        if !unit.isEmpty, !flush() { return nil }
        number.append(character)
      } else if character.isLetter {
        unit.append(character)
      } else {
        return nil
      }
    }
    guard !number.isEmpty || !unit.isEmpty else { return nil }
    guard flush(), total < maximumSeconds else { return nil }
    return .milliseconds(Int64((total * 1000).rounded()))
  }
}

extension YAMLNode {
  /// For messages about scalars of the wrong form: "'abc'" rather than "a string".
  var quotedOrKind: String {
    if let text = scalar { return "'\(text)'" }
    return kindName
  }
}
