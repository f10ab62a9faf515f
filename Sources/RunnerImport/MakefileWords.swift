/// Make's text helpers: words, `%` patterns, file name parts.
enum MakeWords {
  /// make's whitespace between words.
  static func isBlank(_ character: Character) -> Bool {
    character == " " || character == "\t" || character == "\n" || character == "\r"
  }

  /// The words of `text`, split at runs of whitespace.
  static func split(_ text: String) -> [String] {
    text.split(whereSeparator: isBlank).map(String.init)
  }

  /// File names in `text`: words, where a backslash keeps a space in its word (`a\ b`), each
  /// without a leading `./`.
  static func paths(_ text: String) -> [String] {
    var words: [String] = []
    var current = ""
    var escaped = false
    for character in text {
      if escaped {
        if !isBlank(character) { current.append("\\") }
        current.append(character)
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else if isBlank(character) {
        if !current.isEmpty { words.append(current) }
        current = ""
      } else {
        current.append(character)
      }
    }
    if escaped { current.append("\\") }
    if !current.isEmpty { words.append(current) }
    return words.map(normalizedPath)
  }

  /// `text` without whitespace at either end.
  static func trim(_ text: some StringProtocol) -> String {
    var slice = Substring(text)
    while let first = slice.first, isBlank(first) { slice.removeFirst() }
    while let last = slice.last, isBlank(last) { slice.removeLast() }
    return String(slice)
  }

  /// `text` without whitespace at its start.
  static func trimLeading(_ text: some StringProtocol) -> String {
    String(text.drop(while: isBlank))
  }

  /// A `%` pattern split at its first `%`, or nil when it has none.
  static func pattern(_ pattern: String) -> (prefix: String, suffix: String)? {
    guard let percent = pattern.firstIndex(of: "%") else { return nil }
    return (String(pattern[..<percent]), String(pattern[pattern.index(after: percent)...]))
  }

  /// The stem `word` matches `pattern` with (the whole word for a pattern without `%`
  /// matching exactly), or nil.
  static func stem(of word: String, matching pattern: String) -> String? {
    guard let (prefix, suffix) = self.pattern(pattern) else { return word == pattern ? "" : nil }
    guard word.count >= prefix.count + suffix.count, word.hasPrefix(prefix), word.hasSuffix(suffix) else {
      return nil
    }
    return String(word.dropFirst(prefix.count).dropLast(suffix.count))
  }

  /// `$(patsubst pattern,replacement,word)` for one word.
  static func substitute(_ word: String, pattern: String, replacement: String) -> String {
    guard let stem = stem(of: word, matching: pattern) else { return word }
    guard self.pattern(pattern) != nil, let (prefix, suffix) = self.pattern(replacement) else {
      return replacement
    }
    return prefix + stem + suffix
  }

  /// `pattern` with its first `%` replaced by `stem` (a static pattern rule's prerequisite).
  static func replacingPercent(_ pattern: String, with stem: String) -> String {
    guard let percent = pattern.firstIndex(of: "%") else { return pattern }
    var result = pattern
    result.replaceSubrange(percent...percent, with: stem)
    return result
  }

  /// The directory part: `src/a.c` → `src/`, `a.c` → `./`.
  static func directory(_ word: String) -> String {
    guard let slash = word.lastIndex(of: "/") else { return "./" }
    return String(word[...slash])
  }

  /// The part after the last `/`.
  static func file(_ word: String) -> String {
    guard let slash = word.lastIndex(of: "/") else { return word }
    return String(word[word.index(after: slash)...])
  }

  /// The suffix (`.c`) of the file part, or nil.
  static func suffix(_ word: String) -> String? {
    let name = file(word)
    guard let dot = name.lastIndex(of: ".") else { return nil }
    return String(name[dot...])
  }

  /// The word less the suffix of its file part.
  static func basename(_ word: String) -> String {
    guard let suffix = suffix(word) else { return word }
    return String(word.dropLast(suffix.count))
  }

  /// `$(@D)`: the directory part without its trailing `/`, `.` for none.
  static func automaticDirectory(_ word: String) -> String {
    guard let slash = word.lastIndex(of: "/") else { return "." }
    let directory = String(word[..<slash])
    return directory.isEmpty ? "/" : directory
  }

  /// A path as make names it: a leading `./` dropped.
  static func normalizedPath(_ word: String) -> String {
    var path = Substring(word)
    while path.hasPrefix("./"), path.count > 2 { path = path.dropFirst(2) }
    return String(path)
  }

  /// The words in order, each once.
  static func unique(_ words: [String]) -> [String] {
    var seen = Set<String>()
    return words.filter { seen.insert($0).inserted }
  }

  /// True for text with a glob character (`*`, `?`, `[`).
  static func isGlob(_ word: String) -> Bool {
    word.contains { $0 == "*" || $0 == "?" || $0 == "[" }
  }

  /// True for `[A-Za-z_][A-Za-z0-9_]*`: a name the shell (and a runner param) can have.
  static func isShellName(_ name: String) -> Bool {
    guard let first = name.first, first.isASCII, first.isLetter || first == "_" else { return false }
    return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
  }

  /// The suffixes make knows by default (`.SUFFIXES`).
  static let knownSuffixes: [String] = [
    ".out", ".a", ".ln", ".o", ".c", ".cc", ".C", ".cpp", ".p", ".f", ".F", ".m", ".r", ".y", ".l", ".ym",
    ".yl", ".s", ".S", ".mod", ".sym", ".def", ".h", ".info", ".dvi", ".tex", ".texinfo", ".texi", ".txinfo",
    ".w", ".ch", ".web", ".sh", ".elc", ".el",
  ]
}
