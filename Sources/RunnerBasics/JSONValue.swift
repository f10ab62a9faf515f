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
    write(to: &out, pretty: pretty, indent: "")
    return out
  }

  func write(to out: inout String, pretty: Bool, indent: String) {
    switch self {
    case .string(let text): Self.escape(text, into: &out)
    case .int(let value): out += String(value)
    case .double(let value): out += value.isFinite ? String(value) : "null"
    case .bool(let value): out += value ? "true" : "false"
    case .null: out += "null"
    case .array(let items):
      guard !items.isEmpty else { return out += "[]" }
      let inner = indent + "  "
      out += "["
      for (position, item) in items.enumerated() {
        if position > 0 { out += "," }
        if pretty { out += "\n" + inner }
        item.write(to: &out, pretty: pretty, indent: inner)
      }
      out += pretty ? "\n" + indent + "]" : "]"
    case .object(let members):
      guard !members.isEmpty else { return out += "{}" }
      let inner = indent + "  "
      out += "{"
      for (position, (key, value)) in members.enumerated() {
        if position > 0 { out += "," }
        if pretty { out += "\n" + inner }
        Self.escape(key, into: &out)
        out += pretty ? ": " : ":"
        value.write(to: &out, pretty: pretty, indent: inner)
      }
      out += pretty ? "\n" + indent + "}" : "}"
    }
  }

  static func escape(_ text: String, into out: inout String) {
    out += "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }
}
