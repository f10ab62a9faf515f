/// Reading JSON text (RFC 8259) into a `JSONValue`: a language client's messages.
extension JSONValue {
  /// What is wrong with a text that is not JSON, and at which byte.
  package struct ParseError: Error, Sendable, CustomStringConvertible {
    package var offset: Int
    package var reason: String
    package var description: String { "invalid JSON at byte \(offset): \(reason)" }
  }

  /// - Parameter depthLimit: nesting deeper than this is refused (no stack overflow on `[[[[…`).
  package static func parse(_ bytes: [UInt8], depthLimit: Int = 512) throws(ParseError) -> JSONValue {
    var reader = JSONReader(bytes: bytes, depthLimit: depthLimit)
    reader.skipBlanks()
    let value = try reader.value(depth: 0)
    reader.skipBlanks()
    guard reader.position == bytes.count else { throw reader.failure("text after the value") }
    return value
  }

  /// The member `key` of an object; nil for another kind of value or a missing key.
  package subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.0 == key }?.1
  }

  package var string: String? { if case .string(let text) = self { text } else { nil } }
  package var integer: Int? {
    switch self {
    case .int(let value): value
    case .double(let value) where value.rounded() == value && abs(value) < 9e15: Int(value)
    default: nil
    }
  }
  package var array: [JSONValue]? { if case .array(let items) = self { items } else { nil } }
}

private struct JSONReader {
  let bytes: [UInt8]
  let depthLimit: Int
  var position = 0

  init(bytes: [UInt8], depthLimit: Int) {
    self.bytes = bytes
    self.depthLimit = depthLimit
  }

  func failure(_ reason: String) -> JSONValue.ParseError { JSONValue.ParseError(offset: position, reason: reason) }

  mutating func skipBlanks() {
    while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
  }

  mutating func value(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
    guard depth < depthLimit else { throw failure("nested deeper than \(depthLimit)") }
    guard position < bytes.count else { throw failure("the text ends where a value should be") }
    switch bytes[position] {
    case UInt8(ascii: "{"): return try object(depth: depth)
    case UInt8(ascii: "["): return try array(depth: depth)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
    default: throw failure("unexpected character")
    }
  }

  mutating func literal(_ word: String, _ value: JSONValue) throws(JSONValue.ParseError) -> JSONValue {
    let expected = Array(word.utf8)
    guard bytes.count - position >= expected.count, Array(bytes[position..<position + expected.count]) == expected
    else { throw failure("expected '\(word)'") }
    position += expected.count
    return value
  }

  mutating func object(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
    position += 1
    var members: [(String, JSONValue)] = []
    skipBlanks()
    if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
      position += 1
      return .object(members)
    }
    while true {
      skipBlanks()
      guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a key") }
      let key = try string()
      skipBlanks()
      guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw failure("expected ':'") }
      position += 1
      skipBlanks()
      members.append((key, try value(depth: depth + 1)))
      skipBlanks()
      guard position < bytes.count else { throw failure("the object is not closed") }
      if bytes[position] == UInt8(ascii: ",") {
        position += 1
        continue
      }
      guard bytes[position] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
      position += 1
      return .object(members)
    }
  }

  mutating func array(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
    position += 1
    var items: [JSONValue] = []
    skipBlanks()
    if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
      position += 1
      return .array(items)
    }
    while true {
      skipBlanks()
      items.append(try value(depth: depth + 1))
      skipBlanks()
      guard position < bytes.count else { throw failure("the array is not closed") }
      if bytes[position] == UInt8(ascii: ",") {
        position += 1
        continue
      }
      guard bytes[position] == UInt8(ascii: "]") else { throw failure("expected ',' or ']'") }
      position += 1
      return .array(items)
    }
  }

  mutating func number() throws(JSONValue.ParseError) -> JSONValue {
    let start = position
    var isInteger = true
    if bytes[position] == UInt8(ascii: "-") { position += 1 }
    while position < bytes.count {
      let byte = bytes[position]
      if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
        position += 1
      } else if [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-")]
        .contains(byte)
      {
        isInteger = false
        position += 1
      } else {
        break
      }
    }
    let text = String(decoding: bytes[start..<position], as: UTF8.self)
    let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
    if digits.count > 1, digits.hasPrefix("0"), digits.dropFirst().first?.isNumber == true {
      position = start
      throw failure("a number with a leading zero")
    }
    if isInteger, let value = Int(text) { return .int(value) }
    guard let value = Double(text), text != "-" else {
      position = start
      throw failure("invalid number '\(text)'")
    }
    return .double(value)
  }

  mutating func string() throws(JSONValue.ParseError) -> String {
    position += 1
    // The UTF-8 of the value, decoded once at the end (a document's text is one long string).
    var out: [UInt8] = []
    var run = position
    while position < bytes.count {
      let byte = bytes[position]
      if byte == UInt8(ascii: "\"") {
        out.append(contentsOf: bytes[run..<position])
        position += 1
        return String(decoding: out, as: UTF8.self)
      }
      if byte < 0x20 { throw failure("a control character in a string") }
      guard byte == UInt8(ascii: "\\") else {
        position += 1
        continue
      }
      out.append(contentsOf: bytes[run..<position])
      position += 1
      guard position < bytes.count else { break }
      let escape = bytes[position]
      position += 1
      switch escape {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "u"):
        let first = try hex4()
        var code = first
        if (0xD800..<0xDC00).contains(first) {
          code = 0xFFFD
          // The low half, when it follows; another escape is left to be read as itself.
          if position + 5 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
            bytes[position + 1] == UInt8(ascii: "u"),
            let second = UInt32(String(decoding: bytes[position + 2..<position + 6], as: UTF8.self), radix: 16),
            (0xDC00..<0xE000).contains(second)
          {
            position += 6
            code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
          }
        }
        out.append(contentsOf: String(Unicode.Scalar(code) ?? "\u{FFFD}").utf8)
      default: throw failure("an unknown escape")
      }
      run = position
    }
    throw failure("the string is not closed")
  }

  mutating func hex4() throws(JSONValue.ParseError) -> UInt32 {
    guard bytes.count - position >= 4,
      let value = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
    else { throw failure("expected four hex digits") }
    position += 4
    return value
  }
}
