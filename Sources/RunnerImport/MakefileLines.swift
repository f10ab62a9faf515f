/// The physical lines of a Makefile, read into logical lines as make does.
struct MakefileLines {
  let lines: [String]
  /// The index of the next physical line.
  var index = 0

  init(_ text: String) {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
      $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
    }
    if lines.last == "" { lines.removeLast() }
    self.lines = lines
  }

  var atEnd: Bool { index >= lines.count }

  /// The next physical line, not consumed.
  var peek: String? { atEnd ? nil : lines[index] }

  /// True when `line` ends in an odd number of backslashes: it continues on the next line.
  static func continues(_ line: some StringProtocol) -> Bool {
    var count = 0
    for character in line.reversed() {
      guard character == "\\" else { break }
      count += 1
    }
    return count % 2 == 1
  }

  /// The next logical line that is not a recipe: continuation lines joined by one space (a
  /// backslash-newline and the whitespace around it become a space), with its first line's number.
  mutating func nextLine() -> (text: String, line: Int) {
    let line = index + 1
    var text = lines[index]
    index += 1
    while Self.continues(text), index < lines.count {
      let head = String(String(text.dropLast().reversed()).drop(while: MakeWords.isBlank).reversed())
      text = head + " " + MakeWords.trimLeading(lines[index])
      index += 1
    }
    if Self.continues(text) { text.removeLast() }
    return (text, line)
  }

  /// The next recipe line, without its prefix: continuation lines are kept as written
  /// (backslash-newline included: make passes it to the shell), each less its leading prefix.
  mutating func nextRecipeLine(prefix: Character) -> MakeRecipeLine {
    let line = index + 1
    var text = String(lines[index].dropFirst())
    index += 1
    while Self.continues(text), index < lines.count {
      var next = lines[index]
      if next.first == prefix { next.removeFirst() }
      index += 1
      text += "\n" + next
    }
    return MakeRecipeLine(text: text, line: line)
  }

  /// `text` split at its comment: a `#` outside `$(…)` that no backslash escapes (`\#` is a
  /// `#`). A rule whose recipe follows a `;` keeps its comment, which the shell sees.
  static func splitComment(_ text: String) -> (code: String, comment: String?) {
    var code = ""
    var depth = 0
    var sawRuleColon = false
    var sawEquals = false
    let chars = Array(text)
    var index = 0
    while index < chars.count {
      let character = chars[index]
      switch character {
      case "\\" where index + 1 < chars.count && chars[index + 1] == "#":
        code.append("#")
        index += 2
        continue
      case "(", "{": depth += 1
      case ")", "}": depth = max(0, depth - 1)
      case "=" where depth == 0: sawEquals = true
      case ":" where depth == 0 && !sawEquals:
        if index + 1 >= chars.count || chars[index + 1] != "=" { sawRuleColon = true }
      case ";" where depth == 0 && sawRuleColon && !sawEquals:
        return (text, nil)
      case "#" where depth == 0:
        return (code, String(chars[(index + 1)...]))
      default: break
      }
      code.append(character)
      index += 1
    }
    return (code, nil)
  }
}
