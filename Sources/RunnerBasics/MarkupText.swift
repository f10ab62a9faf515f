/// Text helpers shared by the XML, SVG, HTML and Markdown writers.
package enum MarkupText {
  /// Escapes text for XML/HTML content and attribute values; drops control characters
  /// that XML 1.0 does not allow (a task may print anything).
  package static func xml(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      case "\t", "\n": out.unicodeScalars.append(scalar)
      // A raw CR reaches a reader as LF (XML's line-end normalization); a reference keeps it.
      case "\r": out += "&#13;"
      case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
        out += "\u{FFFD}"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// A duration in seconds with a fixed number of decimals (`1.250`), without Foundation.
  package static func seconds(_ duration: Duration, places: Int = 3) -> String {
    fixed(Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18, places: places)
  }

  /// `value` rounded to `places` decimals, written without an exponent.
  package static func fixed(_ value: Double, places: Int) -> String {
    var scale = 1
    for _ in 0..<places { scale *= 10 }
    let scaled = Int((abs(value) * Double(scale)).rounded())
    let sign = value < 0 && scaled != 0 ? "-" : ""
    guard places > 0 else { return sign + String(scaled) }
    let fraction = String(scaled % scale)
    return sign + String(scaled / scale) + "." + String(repeating: "0", count: places - fraction.count) + fraction
  }

  /// Microseconds, for trace events.
  package static func microseconds(_ duration: Duration) -> Int {
    Int(duration.components.seconds) * 1_000_000 + Int(duration.components.attoseconds / 1_000_000_000_000)
  }
}
