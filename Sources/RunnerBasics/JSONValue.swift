/// A JSON value whose objects keep their keys in the order written, so output is stable.
package enum JSONValue: Sendable, Equatable {
  case string(String)
  case int(Int)
  case double(Double)
  case bool(Bool)
  case null
  case array([JSONValue])
  case object([(String, JSONValue)])

  package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    lhs.serialized() == rhs.serialized()
  }

  /// - Parameter pretty: two-space indentation and one item a line; otherwise one line.
  package func serialized(pretty: Bool = false) -> String {
    var out = ""
    write(to: &out, pretty: pretty, depth: 0)
    return out
  }

  package func write(to out: inout String, pretty: Bool, indent: String) {
    write(to: &out, pretty: pretty, depth: indent.utf8.count / 2)
  }

  /// Indentation strings by depth, made once: a large document has millions of lines.
  static let indents = (0..<32).map { "\n" + String(repeating: "  ", count: $0) }

  static func newline(_ depth: Int, into out: inout String) {
    if depth < indents.count {
      out += indents[depth]
    } else {
      out += "\n" + String(repeating: "  ", count: depth)
    }
  }

  func write(to out: inout String, pretty: Bool, depth: Int) {
    switch self {
    case .string(let text): Self.escape(text, into: &out)
    case .int(let value): out += String(value)
    case .double(let value): out += value.isFinite ? String(value) : "null"
    case .bool(let value): out += value ? "true" : "false"
    case .null: out += "null"
    case .array(let items):
      guard !items.isEmpty else { return out += "[]" }
      out += "["
      for (position, item) in items.enumerated() {
        if position > 0 { out += "," }
        if pretty { Self.newline(depth + 1, into: &out) }
        item.write(to: &out, pretty: pretty, depth: depth + 1)
      }
      if pretty { Self.newline(depth, into: &out) }
      out += "]"
    case .object(let members):
      guard !members.isEmpty else { return out += "{}" }
      out += "{"
      for (position, (key, value)) in members.enumerated() {
        if position > 0 { out += "," }
        if pretty { Self.newline(depth + 1, into: &out) }
        Self.escape(key, into: &out)
        out += pretty ? ": " : ":"
        value.write(to: &out, pretty: pretty, depth: depth + 1)
      }
      if pretty { Self.newline(depth, into: &out) }
      out += "}"
    }
  }

  package static func escape(_ text: String, into out: inout String) {
    out += "\""
    // Most strings (names, commands, paths) need no escape: appended whole.
    if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) {
      out += text
      out += "\""
      return
    }
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      // DEL too: YAML's double-quoted strings, which share this escaping, may not hold it raw.
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }
}
