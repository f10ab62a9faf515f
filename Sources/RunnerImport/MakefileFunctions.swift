/// make's built-in functions, evaluated at import where the text is known.
enum MakeFunctions {
  static let names: Set<String> = [
    "subst", "patsubst", "strip", "findstring", "filter", "filter-out", "sort", "word", "words", "wordlist",
    "firstword", "lastword", "dir", "notdir", "suffix", "basename", "addsuffix", "addprefix", "join", "wildcard",
    "realpath", "abspath", "if", "or", "and", "foreach", "call", "value", "origin", "flavor", "shell", "error",
    "warning", "info", "eval", "file", "guile", "let", "intcmp",
  ]

  /// How many arguments each function splits into (the last takes the remaining commas).
  static func arity(_ name: String) -> Int {
    switch name {
    case "subst", "patsubst", "wordlist", "foreach", "if", "let": return 3
    case "findstring", "filter", "filter-out", "word", "addsuffix", "addprefix", "join": return 2
    case "or", "and", "call", "intcmp": return Int.max
    default: return 1
    }
  }

  /// `text` split at the commas outside parentheses and braces, into at most `limit` parts.
  static func arguments(_ text: String, limit: Int) -> [String] {
    var parts: [String] = []
    var current = ""
    var depth = 0
    for character in text {
      switch character {
      case "(", "{": depth += 1
      case ")", "}": depth -= 1
      case "," where depth == 0 && parts.count + 1 < limit:
        parts.append(current)
        current = ""
        continue
      default: break
      }
      current.append(character)
    }
    parts.append(current)
    return parts
  }
}

extension MakeExpander {
  /// `$(name arguments)`.
  mutating func function(_ name: String, _ raw: String, written: String, line: Int, mode: Mode) -> [MakePiece] {
    let parts = MakeFunctions.arguments(raw, limit: MakeFunctions.arity(name))
    switch name {
    case "shell":
      met.shell = true
      return [
        .shell(
          MakeShellCommand(command: expand(raw, line: line, mode: mode), line: line, written: written, once: false))
      ]
    case "wildcard":
      met.wildcard = true
      let patterns = MakeWords.split(value(raw, line: line)).joined(separator: " ")
      return patterns.isEmpty ? [] : [.glob(patterns, line: line)]
    case "strip": return strip(expand(raw, line: line, mode: mode))
    case "if", "or", "and": return conditional(name, parts, line: line, mode: mode)
    case "foreach": return foreach(parts, line: line, mode: mode)
    case "call": return call(parts, line: line, mode: mode)
    case "error", "warning", "info", "eval", "file", "guile", "let", "intcmp":
      reportEffect(name, written: written, line: line, mode: mode)
      return []
    default:
      let values = parts.map { argument($0, line: line) }
      return [.text(textFunction(name, values, written: written, line: line))]
    }
  }

  /// A function's argument as text; a glob from `$(wildcard …)` worked on as text is reported.
  mutating func argument(_ text: String, line: Int) -> String {
    let pieces = expand(text, line: line, mode: .value)
    return flatten(pieces)
  }

  /// The functions that work on text alone.
  mutating func textFunction(_ name: String, _ values: [String], written: String, line: Int) -> String {
    let first = values.first ?? ""
    let second = values.count > 1 ? values[1] : ""
    let third = values.count > 2 ? values[2] : ""
    if name != "value", name != "origin", name != "flavor", values.contains(where: MakeWords.isGlob),
      met.wildcard
    {
      approximate(
        written, at: line,
        "worked on the glob from $(wildcard …) as text (make works on the file names it matches)")
    }
    switch name {
    case "subst": return first.isEmpty ? third : third.replacing(first, with: second)
    case "patsubst":
      return MakeWords.split(third).map { MakeWords.substitute($0, pattern: first, replacement: second) }
        .joined(separator: " ")
    case "findstring": return second.contains(first) ? first : ""
    case "filter", "filter-out":
      let patterns = MakeWords.split(first)
      let keep = name == "filter"
      return MakeWords.split(second).filter { word in
        patterns.contains { MakeWords.stem(of: word, matching: $0) != nil } == keep
      }.joined(separator: " ")
    case "sort": return Array(Set(MakeWords.split(first))).sorted().joined(separator: " ")
    case "word":
      let words = MakeWords.split(second)
      guard let index = Int(MakeWords.trim(first)), index >= 1, index <= words.count else { return "" }
      return words[index - 1]
    case "wordlist":
      let words = MakeWords.split(third)
      guard let start = Int(MakeWords.trim(first)), let end = Int(MakeWords.trim(second)), start >= 1,
        start <= words.count, end >= start
      else { return "" }
      return words[(start - 1)..<min(end, words.count)].joined(separator: " ")
    case "words": return String(MakeWords.split(first).count)
    case "firstword": return MakeWords.split(first).first ?? ""
    case "lastword": return MakeWords.split(first).last ?? ""
    case "dir": return MakeWords.split(first).map(MakeWords.directory).joined(separator: " ")
    case "notdir": return MakeWords.split(first).map(MakeWords.file).joined(separator: " ")
    case "suffix": return MakeWords.split(first).compactMap(MakeWords.suffix).joined(separator: " ")
    case "basename": return MakeWords.split(first).map(MakeWords.basename).joined(separator: " ")
    case "addsuffix": return MakeWords.split(second).map { $0 + first }.joined(separator: " ")
    case "addprefix": return MakeWords.split(second).map { first + $0 }.joined(separator: " ")
    case "join":
      let left = MakeWords.split(first)
      let right = MakeWords.split(second)
      return (0..<max(left.count, right.count)).map {
        ($0 < left.count ? left[$0] : "") + ($0 < right.count ? right[$0] : "")
      }.joined(separator: " ")
    case "value": return variables[MakeWords.trim(first)]?.value ?? ""
    case "origin": return origin(MakeWords.trim(first))
    case "flavor": return flavor(MakeWords.trim(first))
    default:
      notCarried(
        written, at: line,
        "needs the file system (make resolves the path when it reads the Makefile): kept as written, relative")
      return first
    }
  }

  /// `$(strip …)`, keeping what the shell works out.
  func strip(_ pieces: [MakePiece]) -> [MakePiece] {
    var out: [MakePiece] = []
    for (index, piece) in pieces.enumerated() {
      guard case .text(let text) = piece else {
        out.append(piece)
        continue
      }
      var words = MakeWords.split(text).joined(separator: " ")
      if index > 0, text.first.map(MakeWords.isBlank) == true { words = " " + words }
      if index < pieces.count - 1, text.last.map(MakeWords.isBlank) == true, !words.isEmpty { words += " " }
      MakeExpander.append(.text(words), to: &out)
    }
    return out
  }

  /// `$(if …)`, `$(or …)`, `$(and …)`: the conditions' values are needed now.
  mutating func conditional(_ name: String, _ parts: [String], line: Int, mode: Mode) -> [MakePiece] {
    switch name {
    case "if":
      let condition = MakeWords.trim(argument(parts[0], line: line))
      let chosen = condition.isEmpty ? (parts.count > 2 ? parts[2] : "") : (parts.count > 1 ? parts[1] : "")
      return expand(chosen, line: line, mode: mode)
    case "or":
      for part in parts {
        let value = MakeWords.trim(argument(part, line: line))
        if !value.isEmpty { return [.text(value)] }
      }
      return []
    default:
      var last = ""
      for part in parts {
        last = MakeWords.trim(argument(part, line: line))
        if last.isEmpty { return [] }
      }
      return [.text(last)]
    }
  }

  /// `$(foreach var,list,text)`.
  mutating func foreach(_ parts: [String], line: Int, mode: Mode) -> [MakePiece] {
    guard parts.count == 3 else { return [] }
    let name = MakeWords.trim(argument(parts[0], line: line))
    var out: [MakePiece] = []
    for (index, word) in MakeWords.split(argument(parts[1], line: line)).enumerated() {
      if index > 0 { Self.append(.text(" "), to: &out) }
      locals.append([name: word.replacing("$", with: "$$")])
      for piece in expand(parts[2], line: line, mode: mode) { Self.append(piece, to: &out) }
      locals.removeLast()
    }
    return out
  }

  /// `$(call name,arguments…)`: the variable's text with `$(1)`, `$(2)`, … set.
  mutating func call(_ parts: [String], line: Int, mode: Mode) -> [MakePiece] {
    let name = MakeWords.trim(argument(parts[0], line: line))
    var scope = ["0": name]
    for (index, part) in parts.dropFirst().enumerated() {
      scope[String(index + 1)] = storedText(expand(part, line: line, mode: .value))
    }
    guard let variable = targetVariables[name] ?? variables[name] else { return [] }
    locals.append(scope)
    defer { locals.removeLast() }
    return expandVariable(name, variable, mode: mode, line: line)
  }

  /// `$(origin NAME)`.
  func origin(_ name: String) -> String {
    if Self.automaticNames.contains(name) || locals.contains(where: { $0[name] != nil }) { return "automatic" }
    guard let variable = targetVariables[name] ?? variables[name] else { return "undefined" }
    switch variable.origin {
    case .builtin: return "default"
    case .automatic: return "automatic"
    case .file: return variable.isOverride ? "override" : "file"
    }
  }

  /// `$(flavor NAME)`.
  func flavor(_ name: String) -> String {
    guard let variable = targetVariables[name] ?? variables[name] else { return "undefined" }
    return variable.flavor == .simple ? "simple" : "recursive"
  }

  /// Functions make runs for their effect: reported, taken as empty.
  mutating func reportEffect(_ name: String, written: String, line: Int, mode: Mode) {
    let when = mode == .recipe ? "when it starts the recipe" : "when it reads the Makefile"
    switch name {
    case "info", "warning":
      notCarried(written, at: line, "make prints this \(when); runner does not (use `echo` in a command)")
    case "error" where mode == .recipe:
      // Exact: the task fails with make's message before its commands run, as make stops.
      let message = written.hasPrefix("$(error ") ? String(written.dropFirst(8).dropLast()) : written
      met.stop = met.stop ?? "\(makefileName):\(line): *** \(message).  Stop."
    case "error":
      notCarried(written, at: line, "make stops with this message \(when); runner does not (use `exit 1` in a command)")
    case "eval":
      notCarried(written, at: line, "defines rules or variables while make reads the Makefile: not carried")
    default:
      notCarried(written, at: line, "not carried (runner has no equivalent)")
    }
  }
}
