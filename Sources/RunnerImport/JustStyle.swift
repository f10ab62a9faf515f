/// just's `style(styles)`: the ANSI escape that starts text in those styles, as just's terminal
/// library (nu_ansi_term) writes it: properties first (bold 1 … strikethrough 9), then the
/// foreground and background colors. Roles are just's own: `error` bold red, `warning` bold
/// yellow, `command` bold. `stdout`/`stderr` ask whether that stream takes color: a recipe's
/// output under runner is a pipe, so they turn the style off.
enum JustStyle {
  /// The escape, empty for no style or an inactive stream; nil for a token just refuses.
  static func prefix(_ tokens: [String]) -> String? {
    var properties: Set<Int> = []
    var foreground: String?
    var background: String?
    var active = true
    let names = ["black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7]
    let flags = [
      "bold": 1, "dim": 2, "italic": 3, "underline": 4, "blink": 5, "reverse": 7, "hidden": 8, "strikethrough": 9,
    ]
    for token in tokens {
      var layer = "fg"
      var value = Substring(token)
      if value.hasPrefix("fg:") || value.hasPrefix("bg:") {
        layer = String(value.prefix(2))
        value = value.dropFirst(3)
      }
      let color: String?
      if let number = Int(value), number <= 255, value.first != "+", !(value.hasPrefix("0") && value.count > 1) {
        color = "5;\(number)"
      } else if value.hasPrefix("#"), value.count == 7 || value.count == 4,
        value.dropFirst().allSatisfy({ $0.isASCII && $0.isHexDigit })
      {
        let digits = Array(value.dropFirst())
        let parts =
          digits.count == 6
          ? [0, 2, 4].map { Int(String(digits[$0...$0 + 1]), radix: 16)! }
          : digits.map { Int(String($0), radix: 16)! * 0x11 }
        color = "2;" + parts.map(String.init).joined(separator: ";")
      } else if let index = names[String(value)] {
        color = layer == "fg" ? "\(30 + index)" : "\(40 + index)"
        if layer == "fg" { foreground = color } else { background = color }
        continue
      } else {
        color = nil
      }
      if let color {
        if layer == "fg" { foreground = "38;" + color } else { background = "48;" + color }
        continue
      }
      guard token == String(value) else { return nil }
      switch token {
      case "stdout", "stderr": active = false
      case "command": properties.insert(1)
      case "error":
        foreground = "31"
        properties.insert(1)
      case "warning":
        foreground = "33"
        properties.insert(1)
      default:
        guard let flag = flags[token] else { return nil }
        properties.insert(flag)
      }
    }
    let codes = properties.sorted().map(String.init) + [foreground, background].compactMap { $0 }
    guard active, !codes.isEmpty else { return "" }
    return "\u{1b}[" + codes.joined(separator: ";") + "m"
  }
}
