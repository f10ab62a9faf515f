/// Task names: letters, digits, `_`, `-`, `.` and `:`, at most `maximumNameLength` characters.
extension TaskFileDecoder {
  static func isPlainNameByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"),
      UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"):
      return true
    default: return false
    }
  }

  mutating func checkName(_ name: String, at node: YAMLNode) -> Bool {
    if name.isEmpty {
      reader.fail(.invalidTaskName(name, reason: "a name cannot be empty"), at: node)
      return false
    }
    // The common case, checked byte by byte: a short ASCII name of allowed characters.
    if name.utf8.count <= Self.maximumNameLength, name.utf8.allSatisfy(Self.isPlainNameByte) { return true }
    if name.count > Self.maximumNameLength {
      reader.fail(
        .invalidTaskName(String(name.prefix(40)) + "…", reason: "longer than \(Self.maximumNameLength) characters"),
        at: node)
      return false
    }
    if let bad = name.first(where: { !($0.isLetter || $0.isNumber || "_-.:".contains($0)) }) {
      reader.fail(
        .invalidTaskName(name, reason: "'\(bad)' is not allowed (use letters, digits, '_', '-', '.' and ':')"), at: node
      )
      return false
    }
    return true
  }
}

extension TaskFileDecoder {
  /// An alias is a task name of ASCII letters, digits, `_`, `-` and `.` (no `:`: it is
  /// namespaced like the task).
  static func isValidAlias(_ alias: String) -> Bool {
    !alias.isEmpty && alias.utf8.count <= maximumNameLength
      && alias.utf8.allSatisfy { isPlainNameByte($0) && $0 != UInt8(ascii: ":") }
  }
}
