extension String {
  /// Whether the text holds a control character other than a tab.
  package var hasControlCharacters: Bool {
    unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }
  }

  /// The text with its control characters but tabs (and newlines, when kept) written out as
  /// `\n`, `\r`, `\e` or `\xHH`: text from a damaged file or a param's value cannot move the
  /// cursor, ring the bell or fake a line of runner's own (`✓ deploy succeeded`).
  package func escapingControlCharacters(keepingNewlines: Bool = false) -> String {
    guard hasControlCharacters else { return self }
    var out = ""
    for scalar in unicodeScalars {
      switch scalar {
      case "\t": out.unicodeScalars.append(scalar)
      case "\n" where keepingNewlines: out.unicodeScalars.append(scalar)
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\u{1B}": out += "\\e"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        let hex = String(scalar.value, radix: 16)
        out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
