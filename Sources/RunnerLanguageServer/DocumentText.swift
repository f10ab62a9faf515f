/// An open document's text by lines, and the conversions between runner's positions (1-based
/// line and column, counted in characters as libyaml counts them) and the protocol's (0-based
/// line and character, counted in UTF-16 code units).
struct DocumentText: Sendable {
  let text: String
  let lines: [Substring]

  init(_ text: String) {
    self.text = text
    // Split on the bytes (`\r\n` is one Character, and grapheme breaking is slow on a large file).
    lines = text.utf8.split(separator: 10, omittingEmptySubsequences: false).map { line in
      Substring(line.last == 13 ? line.dropLast() : line)
    }
  }

  func line(_ index: Int) -> Substring { lines.indices.contains(index) ? lines[index] : "" }

  /// The protocol's character of runner's 1-based `column` on 0-based `line`.
  func character(line: Int, column: Int) -> Int {
    let text = self.line(line)
    return text.unicodeScalars.prefix(max(0, column - 1)).reduce(0) { $0 + $1.utf16.count }
  }

  /// The text of `line` before the protocol's `character`.
  func prefix(line: Int, character: Int) -> Substring {
    let text = self.line(line)
    var units = 0
    var end = text.startIndex
    for index in text.unicodeScalars.indices {
      if units >= character { break }
      units += text.unicodeScalars[index].utf16.count
      end = text.unicodeScalars.index(after: index)
    }
    return text[..<end]
  }

  /// The range (protocol characters) of the word at runner's `column` on `line`: a name, a
  /// key, a path; at least one character.
  func wordRange(line: Int, column: Int) -> (start: Int, end: Int) {
    let text = Array(self.line(line).unicodeScalars)
    var first = max(0, column - 1)
    // A quoted name: the name, not the quote.
    if first < text.count, text[first] == "'" || text[first] == "\"", first + 1 < text.count { first += 1 }
    var last = first
    while last < text.count, !Self.ends(text[last]) { last += 1 }
    let start = character(line: line, column: first + 1)
    let width = text[min(first, text.count)..<min(last, text.count)].reduce(0) { $0 + $1.utf16.count }
    return (start, start + max(width, 1))
  }

  /// The word (task name characters) around the protocol's `character` on `line`.
  func word(line: Int, character: Int) -> String? {
    let text = Array(self.line(line).unicodeScalars)
    var offset = 0
    var index = 0
    while index < text.count, offset + text[index].utf16.count <= character {
      offset += text[index].utf16.count
      index += 1
    }
    var low = index
    while low > 0, Self.isNameScalar(text[low - 1]) { low -= 1 }
    var high = index
    while high < text.count, Self.isNameScalar(text[high]) { high += 1 }
    guard low < high else { return nil }
    var word = String(String.UnicodeScalarView(text[low..<high]))
    // `build:` as a key, `deps.x.outputs` in an expression: the name without what follows.
    while word.hasSuffix(":") { word.removeLast() }
    return word.isEmpty ? nil : word
  }

  static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
    scalar.properties.isAlphabetic || (48...57).contains(scalar.value) || "_-.:/".unicodeScalars.contains(scalar)
  }

  private static func ends(_ scalar: Unicode.Scalar) -> Bool {
    " \t,]}'\"#".unicodeScalars.contains(scalar)
  }

  /// The keys of the mappings that enclose `line` (by indentation, YAML's block style), from
  /// the top: `["tasks", "build", "deps"]` for a line under a task's `deps:`.
  ///
  /// - Parameter cursor: on a line blank up to the cursor, the cursor's column is the
  ///   indentation (a key being started where the editor put the cursor).
  func keyPath(line: Int, cursor: Int? = nil) -> [String] {
    parents(line: line, cursor: cursor).map(\.key)
  }

  /// True when `line` is inside a block scalar (`run: |`): text, not keys.
  func inBlockScalar(line: Int, cursor: Int? = nil) -> Bool {
    guard let parent = parents(line: line, cursor: cursor).last else { return false }
    let value = parent.value.trimmingLeadingBlanks()
    return value.hasPrefix("|") || value.hasPrefix(">")
  }

  /// The key lines above `line` that enclose it, outermost first: each key and what follows its colon.
  func parents(line: Int, cursor: Int? = nil) -> [(key: String, value: Substring)] {
    var path: [(key: String, value: Substring)] = []
    let own = self.line(line)
    var indent = indentation(of: own)
    if let cursor, own.prefix(cursor).allSatisfy({ $0 == " " }) {
      indent = cursor
    } else if own.trimmingLeadingBlanks().isEmpty {
      indent = Int.max
    }
    var index = line - 1
    while index >= 0, indent > 0 {
      let text = self.line(index)
      let trimmed = text.trimmingLeadingBlanks()
      let own = indentation(of: text)
      if !trimmed.isEmpty, !trimmed.hasPrefix("#"), own < indent {
        var key = trimmed
        if key.hasPrefix("- ") { key = key.dropFirst(2).trimmingLeadingBlanks() }
        if let colon = key.firstIndex(of: ":") {
          path.insert((String(key[..<colon]).trimmingQuotes(), key[key.index(after: colon)...]), at: 0)
          indent = own
        }
      }
      index -= 1
    }
    return path
  }

  func indentation(of text: Substring) -> Int { text.prefix { $0 == " " }.count }
}

extension Substring {
  func trimmingLeadingBlanks() -> Substring { drop { $0 == " " || $0 == "\t" } }
}

extension String {
  func trimmingQuotes() -> String {
    guard count >= 2, let first, first == "'" || first == "\"", last == first else { return self }
    return String(dropFirst().dropLast())
  }
}
