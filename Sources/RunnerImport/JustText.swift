/// Small text helpers (Sources use no Foundation).
enum JustText {
  /// A space or a tab.
  static func isBlank(_ character: Character) -> Bool { character == " " || character == "\t" }

  /// `[A-Za-z_][A-Za-z0-9_]*`: a name the shell and runner's `${NAME}` can read.
  static func isVariableName(_ name: some StringProtocol) -> Bool {
    guard let first = name.first, first.isASCII, first.isLetter || first == "_" else { return false }
    return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
  }

  /// `text` without leading and trailing spaces and tabs.
  static func trimmed(_ text: some StringProtocol) -> String {
    String(text.drop(while: isBlank).reversed().drop(while: isBlank).reversed())
  }
}
