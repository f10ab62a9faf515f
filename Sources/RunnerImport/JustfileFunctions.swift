/// just's built-in functions whose result depends only on their arguments, evaluated at import
/// as just evaluates them (`src/function.rs`): the text functions, heck's case conversions,
/// Rust's path operations, semver requirements. A value is its elements: a string is one, a
/// list (`set lists`) any number.
enum JustFunctions {
  /// The result of `name(arguments)`, or nil when it is not such a function, or when just would
  /// stop with an error (the import then reports it).
  static func evaluate(_ name: String, _ arguments: [[String]], lists: Bool) -> [String]? {
    // With `set lists`, a function not updated for lists takes strings only: just stops at a list.
    let takesLists: [String: Set<Int>] = [
      "quote": [0], "show": [0], "len": [0], "join_list": [0], "append": [1], "prepend": [1], "bool": [0],
      "style": [0],
    ]
    if lists, arguments.indices.contains(where: { arguments[$0].count != 1 && takesLists[name]?.contains($0) != true })
    {
      return nil
    }
    let strings = arguments.map { $0.joined(separator: " ") }
    switch (name, strings.count) {
    case ("uppercase", 1): return [strings[0].uppercased()]
    case ("lowercase", 1): return [strings[0].lowercased()]
    case ("capitalize", 1):
      guard let first = strings[0].first else { return [""] }
      return [first.uppercased() + strings[0].dropFirst().lowercased()]
    case ("titlecase", 1): return [words(strings[0]).map(capitalized).joined(separator: " ")]
    case ("kebabcase", 1): return [words(strings[0]).map { $0.lowercased() }.joined(separator: "-")]
    case ("snakecase", 1): return [words(strings[0]).map { $0.lowercased() }.joined(separator: "_")]
    case ("shoutykebabcase", 1): return [words(strings[0]).map { $0.uppercased() }.joined(separator: "-")]
    case ("shoutysnakecase", 1): return [words(strings[0]).map { $0.uppercased() }.joined(separator: "_")]
    case ("uppercamelcase", 1): return [words(strings[0]).map(capitalized).joined()]
    case ("lowercamelcase", 1):
      let parts = words(strings[0])
      return [(parts.first?.lowercased() ?? "") + parts.dropFirst().map(capitalized).joined()]
    case ("trim", 1): return [trimmed(strings[0], start: true, end: true)]
    case ("trim_start", 1): return [trimmed(strings[0], start: true, end: false)]
    case ("trim_end", 1): return [trimmed(strings[0], start: false, end: true)]
    case ("trim_start_match", 2):
      return [strings[0].hasPrefix(strings[1]) ? String(strings[0].dropFirst(strings[1].count)) : strings[0]]
    case ("trim_end_match", 2):
      return [strings[0].hasSuffix(strings[1]) ? String(strings[0].dropLast(strings[1].count)) : strings[0]]
    case ("trim_start_matches", 2):
      guard !strings[1].isEmpty else { return [strings[0]] }
      var rest = Substring(strings[0])
      while rest.hasPrefix(strings[1]) { rest = rest.dropFirst(strings[1].count) }
      return [String(rest)]
    case ("trim_end_matches", 2):
      guard !strings[1].isEmpty else { return [strings[0]] }
      var rest = Substring(strings[0])
      while rest.hasSuffix(strings[1]) { rest = rest.dropLast(strings[1].count) }
      return [String(rest)]
    case ("replace", 3): return [replaced(strings[0], strings[1], strings[2])]
    case ("quote", 1):
      let elements = lists ? arguments[0] : [strings[0]]
      return lists ? elements.map(TasksFileWriter.shellQuoted) : [TasksFileWriter.shellQuoted(strings[0])]
    case ("show", 1): return [shown(arguments[0])]
    case ("len", 1): return [String(arguments[0].count)]
    case ("join_list", 1...2): return [arguments[0].joined(separator: strings.count == 2 ? strings[1] : " ")]
    case ("split", 1...2): return split(strings[0], strings.count == 2 ? strings[1] : nil)
    case ("append", 2), ("prepend", 2):
      let elements = lists ? arguments[1] : split(strings[1], nil)
      let result = elements.map { name == "append" ? $0 + strings[0] : strings[0] + $0 }
      return lists ? result : [result.joined(separator: " ")]
    case ("style", 1): return JustStyle.prefix(arguments[0]).map { [$0] }
    case ("style", 2):
      return JustStyle.prefix(arguments[0]).map { [$0.isEmpty ? strings[1] : $0 + strings[1] + "\u{1b}[0m"] }
    case ("bool", 1):
      guard arguments[0].count <= 1 else { return nil }
      switch arguments[0].first ?? "" {
      case "", "0", "false": return boolean(false, lists: lists)
      case "1", "true": return boolean(true, lists: lists)
      default: return nil
      }
    case ("join", 2...): return [strings.dropFirst().reduce(strings[0], JustPath.joined)]
    case ("clean", 1): return [JustPath.clean(strings[0])]
    case ("parent_directory", 1): return JustPath.parent(strings[0]).map { [$0.isEmpty ? "." : $0] }
    case ("file_name", 1): return JustPath.fileName(strings[0]).map { [$0] }
    case ("file_stem", 1): return JustPath.stemAndExtension(strings[0]).map { [$0.stem] }
    case ("extension", 1): return JustPath.stemAndExtension(strings[0])?.extension.map { [$0] }
    case ("without_extension", 1):
      guard let parent = JustPath.parent(strings[0]), let parts = JustPath.stemAndExtension(strings[0]) else {
        return nil
      }
      return [JustPath.joined(parent, parts.stem)]
    case ("os", 0): return ["linux"]
    case ("os_family", 0): return ["unix"]
    case ("encode_uri_component", 1): return [uriComponent(strings[0])]
    case ("semver_matches", 2):
      guard let matches = JustSemver.matches(version: strings[0], requirement: strings[1]) else { return nil }
      return boolean(matches, lists: lists)
    default: return nil
    }
  }

  /// just's constants (`src/constants.rs`), their Unix values.
  static let constants: [String: String] = {
    var table = [
      "HEX": "0123456789abcdef", "HEXLOWER": "0123456789abcdef", "HEXUPPER": "0123456789ABCDEF", "PATH_SEP": "/",
      "PATH_VAR_SEP": ":", "CLEAR": "\u{1B}c",
    ]
    let styles = [
      ("NORMAL", 0), ("BOLD", 1), ("ITALIC", 3), ("UNDERLINE", 4), ("INVERT", 7), ("HIDE", 8), ("STRIKETHROUGH", 9),
    ]
    for (name, code) in styles { table[name] = "\u{1B}[\(code)m" }
    for (index, color) in ["BLACK", "RED", "GREEN", "YELLOW", "BLUE", "MAGENTA", "CYAN", "WHITE"].enumerated() {
      table[color] = "\u{1B}[\(30 + index)m"
      table["BG_" + color] = "\u{1B}[\(40 + index)m"
    }
    return table
  }()

  /// just's canonical booleans: `"true"` or `[]` with `set lists`, else `"true"` or `"false"`.
  static func boolean(_ condition: Bool, lists: Bool) -> [String] {
    lists ? (condition ? ["true"] : []) : [condition ? "true" : "false"]
  }

  /// `show(value)`: one element as a double-quoted string, any other number in brackets.
  static func shown(_ elements: [String]) -> String {
    func element(_ text: String) -> String {
      var out = "\""
      for character in text {
        switch character {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default: out.append(character)
        }
      }
      return out + "\""
    }
    if elements.count == 1 { return element(elements[0]) }
    return "[" + elements.map(element).joined(separator: ", ") + "]"
  }

  /// Rust's `str::replace`: an empty pattern matches between every two characters and at both ends.
  static func replaced(_ text: String, _ pattern: String, _ replacement: String) -> String {
    guard !pattern.isEmpty else {
      return replacement + text.map(String.init).joined(separator: replacement) + replacement
    }
    var out = ""
    var rest = Substring(text)
    while let range = rest.firstRange(of: pattern) {
      out += rest[..<range.lowerBound] + replacement
      rest = rest[range.upperBound...]
    }
    return out + rest
  }

  /// Rust's `split_whitespace`, or `split(separator)` (an empty one splits into characters).
  static func split(_ text: String, _ separator: String?) -> [String] {
    guard let separator else { return text.split(whereSeparator: \.isWhitespace).map(String.init) }
    guard !separator.isEmpty else { return text.map(String.init) }
    var parts: [String] = []
    var rest = Substring(text)
    while let range = rest.firstRange(of: separator) {
      parts.append(String(rest[..<range.lowerBound]))
      rest = rest[range.upperBound...]
    }
    return parts + [String(rest)]
  }

  static func trimmed(_ text: String, start: Bool, end: Bool) -> String {
    var rest = Substring(text)
    if start { rest = rest.drop(while: \.isWhitespace) }
    if end { while rest.last?.isWhitespace == true { rest = rest.dropLast() } }
    return String(rest)
  }

  static func capitalized(_ word: String) -> String {
    guard let first = word.first else { return "" }
    return first.uppercased() + word.dropFirst().lowercased()
  }

  /// heck's words: split at anything not a letter or digit, between a lower-case letter or a
  /// digit and an upper-case one, and before the last capital of a run followed by a lower-case letter
  /// (`HTTPServer` → `HTTP`, `Server`).
  static func words(_ text: String) -> [String] {
    var result: [String] = []
    for chunk in text.split(whereSeparator: { !($0.isLetter || $0.isNumber) }) {
      let characters = Array(chunk)
      var word = ""
      for (index, character) in characters.enumerated() {
        word.append(character)
        guard index + 1 < characters.count else { break }
        let next = characters[index + 1]
        let afterNext = index + 2 < characters.count ? characters[index + 2] : nil
        if (character.isLowercase || character.isNumber) && next.isUppercase
          || character.isUppercase && next.isUppercase && afterNext?.isLowercase == true
        {
          result.append(word)
          word = ""
        }
      }
      if !word.isEmpty { result.append(word) }
    }
    return result
  }

  /// `encodeURIComponent`: every byte percent-encoded but letters, digits and `-_.!~*'()`.
  static func uriComponent(_ text: String) -> String {
    let digits = Array("0123456789ABCDEF")
    var out = ""
    for byte in text.utf8 {
      let scalar = Unicode.Scalar(byte)
      if byte < 128,
        Character(scalar).isLetter || Character(scalar).isNumber || "-_.!~*'()".unicodeScalars.contains(scalar)
      {
        out.unicodeScalars.append(scalar)
      } else {
        out += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
      }
    }
    return out
  }
}

/// Rust's `Path` operations on `/`-separated text, as just's path functions use them.
enum JustPath {
  /// The components: repeated `/` and `.` (past the first) dropped, a leading `/` kept as "/".
  static func components(_ path: String) -> [String] {
    var parts: [String] = path.hasPrefix("/") ? ["/"] : []
    for (index, part) in path.split(separator: "/", omittingEmptySubsequences: true).enumerated() {
      if part == ".", index > 0 || path.hasPrefix("/") { continue }
      parts.append(String(part))
    }
    return parts
  }

  static func rendered(_ components: [String]) -> String {
    guard components.first == "/" else { return components.joined(separator: "/") }
    return "/" + components.dropFirst().joined(separator: "/")
  }

  /// `Path::join`: an absolute second path replaces the first.
  static func joined(_ base: String, _ path: String) -> String {
    if path.hasPrefix("/") || base.isEmpty { return path }
    return base.hasSuffix("/") ? base + path : base + "/" + path
  }

  /// `Path::parent`: nil for `/` and the empty path.
  static func parent(_ path: String) -> String? {
    let parts = components(path)
    guard let last = parts.last, last != "/" else { return nil }
    return rendered(Array(parts.dropLast()))
  }

  /// `Path::file_name`: nil when the path ends in `..` or is the root.
  static func fileName(_ path: String) -> String? {
    guard let last = components(path).last, last != "/", last != "..", last != "." else { return nil }
    return last
  }

  /// `Path::file_stem` and `Path::extension`.
  static func stemAndExtension(_ path: String) -> (stem: String, extension: String?)? {
    guard let name = fileName(path) else { return nil }
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, nil) }
    return (String(name[..<dot]), String(name[name.index(after: dot)...]))
  }

  /// path-clean's `clean`: `.` and `x/..` removed lexically; `.` for nothing left.
  static func clean(_ path: String) -> String {
    let rooted = path.hasPrefix("/")
    var parts: [String] = []
    for part in path.split(separator: "/") where part != "." {
      if part == ".." {
        if let last = parts.last, last != ".." {
          parts.removeLast()
        } else if !rooted {
          parts.append("..")
        }
      } else {
        parts.append(String(part))
      }
    }
    let out = (rooted ? "/" : "") + parts.joined(separator: "/")
    return out.isEmpty ? "." : out
  }
}

/// Cargo's semver requirements (`>=1.2`, `^0.3`, `~1.2.3`, `=1`, `<2`, `*`, comma-separated),
/// enough for `semver_matches`; nil for text that is not a version or a requirement.
enum JustSemver {
  struct Version: Comparable {
    var numbers: [Int]
    var pre: String

    static func < (left: Version, right: Version) -> Bool {
      if left.numbers != right.numbers { return left.numbers.lexicographicallyPrecedes(right.numbers) }
      if left.pre.isEmpty != right.pre.isEmpty { return !left.pre.isEmpty }
      return left.pre < right.pre
    }
  }

  static func version(_ text: String) -> Version? {
    let core = text.split(separator: "+", maxSplits: 1).first.map(String.init) ?? ""
    let parts = core.split(separator: "-", maxSplits: 1)
    let numbers = (parts.first ?? "").split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
    guard numbers.count == 3, numbers.allSatisfy({ $0 != nil }) else { return nil }
    return Version(numbers: numbers.map { $0 ?? 0 }, pre: parts.count == 2 ? String(parts[1]) : "")
  }

  static func matches(version text: String, requirement: String) -> Bool? {
    guard let version = version(JustText.trimmed(text)) else { return nil }
    for comparator in requirement.split(separator: ",") {
      guard let result = matches(version, JustText.trimmed(comparator)) else { return nil }
      if !result { return false }
    }
    // A pre-release matches only a comparator naming one of the same numbers.
    if !version.pre.isEmpty { return requirement.contains("-") }
    return true
  }

  /// One comparator: an operator (default `^`) and a partial version (`1`, `1.2`, `1.2.3`, `*`).
  static func matches(_ version: Version, _ comparator: String) -> Bool? {
    if comparator == "*" || comparator.isEmpty { return true }
    let operators = [">=", "<=", ">", "<", "=", "^", "~"]
    let operation = operators.first { comparator.hasPrefix($0) } ?? "^"
    let rest = JustText.trimmed(comparator.dropFirst(comparator.hasPrefix(operation) ? operation.count : 0))
    let core = rest.split(separator: "-", maxSplits: 1)
    let fields = (core.first ?? "").split(separator: ".").map(String.init)
    guard (1...3).contains(fields.count) else { return nil }
    var numbers: [Int] = []
    for field in fields where field != "*" && field != "x" && field != "X" {
      guard let number = Int(field) else { return nil }
      numbers.append(number)
    }
    let pre = core.count == 2 ? String(core[1]) : ""
    let given = numbers.count
    // `>*`, `<=x`: Cargo refuses a wildcard after an operator other than `=`, `^`, `~`.
    guard given > 0 || ["=", "^", "~"].contains(operation) else { return nil }
    let low = Version(numbers: numbers + Array(repeating: 0, count: 3 - given), pre: pre)
    // The version past every version the partial one names (`1.2` → `1.3.0`).
    func bump(_ index: Int) -> Version {
      var upper = Array(numbers.prefix(index + 1)) + Array(repeating: 0, count: 2 - index)
      upper[index] += 1
      return Version(numbers: upper, pre: "0")
    }
    switch operation {
    case ">=": return version >= low
    case ">": return given == 3 ? version > low : version >= bump(given - 1)
    case "<": return version < low
    case "<=": return given == 3 ? version <= low : version < bump(given - 1)
    case "=": return given == 0 || (version >= low && (given == 3 ? version <= low : version < bump(given - 1)))
    case "~": return given == 0 || (version >= low && version < bump(given == 1 ? 0 : 1))
    default:
      guard given > 0 else { return true }
      let first = numbers.firstIndex { $0 != 0 } ?? (given - 1)
      return version >= low && version < bump(min(first, given - 1))
    }
  }
}
