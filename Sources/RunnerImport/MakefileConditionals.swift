/// An `ifeq`/`ifneq`/`ifdef`/`ifndef` block being read.
struct MakeConditional: Sendable {
  var keyword: String
  var written: String
  var line: Int
  /// False inside a branch that is left out: nothing in it is decided or reported.
  var parentActive: Bool
  /// Nil when the condition cannot be decided at import.
  var undecidable: String?
  /// A branch was taken already (the following `else` ones are not).
  var taken = false
  /// The current branch's lines are kept.
  var active = false
  /// Each branch's directive line and how it is written.
  var branches: [(line: Int, written: String)] = []
  var takenBranch: Int?
  /// `ifneq (,$(wildcard F))` around `include F`: the file, decided as if it exists.
  var includeGuard: String?
  /// Variables set in its branches, when it cannot be decided: their values are not known.
  var assigned: [(name: String, line: Int)] = []
}

extension MakefileReader {
  static let conditionalKeywords: Set<String> = ["ifeq", "ifneq", "ifdef", "ifndef", "else", "endif"]

  /// Handles a conditional directive; false for any other line.
  mutating func conditionalDirective(_ text: String, line: Int) throws(ImportError) -> Bool {
    let keyword = Self.keyword(text)
    guard Self.conditionalKeywords.contains(keyword) else { return false }
    let rest = MakeWords.trim(text.dropFirst(keyword.count))
    switch keyword {
    case "else":
      guard !conditionals.isEmpty else { throw ImportError(file: path, line: line, "'else' without 'if'") }
      elseBranch(rest, written: text, line: line)
    case "endif":
      guard let closed = conditionals.popLast() else {
        throw ImportError(file: path, line: line, "'endif' without 'if'")
      }
      if closed.parentActive {
        reportConditional(closed, endLine: line)
        forgetAssigned(closed)
      }
    default:
      let parentActive = isActive
      var conditional = MakeConditional(keyword: keyword, written: text, line: line, parentActive: parentActive)
      conditional.branches = [(line, text)]
      if parentActive { decide(&conditional, keyword: keyword, rest, branch: 0) }
      conditionals.append(conditional)
    }
    return true
  }

  /// `else` or `else ifeq …`.
  mutating func elseBranch(_ rest: String, written: String, line: Int) {
    guard var conditional = conditionals.popLast() else { return }
    conditional.branches.append((line, written))
    if !conditional.parentActive || conditional.undecidable != nil || conditional.includeGuard != nil
      || conditional.taken
    {
      conditional.active = false
    } else if rest.isEmpty {
      conditional.active = true
      conditional.taken = true
      conditional.takenBranch = conditional.branches.count - 1
    } else {
      let keyword = Self.keyword(rest)
      decide(
        &conditional, keyword: keyword, MakeWords.trim(rest.dropFirst(keyword.count)),
        branch: conditional.branches.count - 1)
    }
    conditionals.append(conditional)
  }

  /// Works out a condition with the variables as the Makefile sets them and an empty environment.
  mutating func decide(_ conditional: inout MakeConditional, keyword: String, _ text: String, branch: Int) {
    let quiet = expander.quiet
    expander.quiet = true
    expander.met = MakeExpander.Met()
    var result: Bool
    switch keyword {
    case "ifdef", "ifndef":
      let name = MakeWords.trim(expander.value(text, line: conditional.line))
      let value = expander.variables[name]?.value ?? ""
      result = (keyword == "ifdef") == !value.isEmpty
    case "ifeq", "ifneq":
      let (left, right) = comparison(text, line: conditional.line)
      result = (keyword == "ifeq") == (left == right)
    default:
      result = false
    }
    expander.quiet = quiet
    if expander.met.shell || expander.met.wildcard {
      if branch == 0, let guarded = includeGuard(keyword, text) {
        conditional.includeGuard = guarded
        conditional.active = true
        conditional.taken = true
        conditional.takenBranch = 0
        return
      }
      conditional.undecidable = expander.met.shell ? "$(shell …)" : "$(wildcard …)"
      conditional.active = false
      return
    }
    conditional.active = result
    if result {
      conditional.taken = true
      conditional.takenBranch = branch
    }
  }

  /// Records a variable set on a line that is left out, for the undecidable conditional
  /// around it.
  mutating func noteLeftOutAssignment(_ text: String, line: Int) {
    guard let index = conditionals.lastIndex(where: { $0.undecidable != nil && $0.parentActive }) else { return }
    var text = text
    var isDefine = false
    for prefix in ["export ", "override ", "private ", "define "] where text.hasPrefix(prefix) {
      text = MakeWords.trimLeading(text.dropFirst(prefix.count))
      isDefine = isDefine || prefix == "define "
    }
    var name: String
    if case .assignment(let assigned, _, _) = Self.classify(text) {
      name = assigned
    } else if isDefine {
      name = text
    } else {
      return
    }
    let quiet = expander.quiet
    expander.quiet = true
    name = MakeWords.trim(expander.value(name, line: line))
    expander.quiet = quiet
    if MakeWords.isShellName(name) { conditionals[index].assigned.append((name, line)) }
  }

  /// After an undecidable conditional: what its branches set is not known at import.
  mutating func forgetAssigned(_ conditional: MakeConditional) {
    for (name, line) in conditional.assigned {
      if expander.variables[name] != nil {
        expander.variables[name]?.unknown = true
      } else if expander.leftOut[name] == nil {
        expander.leftOut[name] = line
      }
    }
  }

  /// The two sides of `(a,b)`, `"a" "b"` or `'a' 'b'`, expanded.
  mutating func comparison(_ text: String, line: Int) -> (String, String) {
    var sides: [String]
    if text.hasPrefix("("), text.hasSuffix(")") {
      sides = MakeFunctions.arguments(String(text.dropFirst().dropLast()), limit: 2)
    } else {
      sides = Self.quotedSides(text)
    }
    guard sides.count == 2 else { return ("", "x") }
    return (
      MakeWords.trim(expander.value(sides[0], line: line)), MakeWords.trim(expander.value(sides[1], line: line))
    )
  }

  /// `"a" "b"` or `'a' 'b'` split into its two sides.
  static func quotedSides(_ text: String) -> [String] {
    var sides: [String] = []
    var rest = Substring(text)
    while let quote = rest.first, quote == "\"" || quote == "'" {
      rest.removeFirst()
      guard let end = rest.firstIndex(of: quote) else { return [] }
      sides.append(String(rest[..<end]))
      rest = rest[rest.index(after: end)...].drop(while: MakeWords.isBlank)
    }
    return sides
  }

  /// The file of `ifneq (,$(wildcard F))` (either side) when its branch holds only `include F`
  /// and `export` lines, else nil.
  func includeGuard(_ keyword: String, _ text: String) -> String? {
    guard keyword == "ifneq", text.hasPrefix("("), text.hasSuffix(")") else { return nil }
    let sides = MakeFunctions.arguments(String(text.dropFirst().dropLast()), limit: 2).map { MakeWords.trim($0) }
    guard sides.count == 2, sides.contains(""), let call = sides.first(where: { !$0.isEmpty }),
      call.hasPrefix("$(wildcard "), call.hasSuffix(")")
    else { return nil }
    let file = MakeWords.normalizedPath(MakeWords.trim(call.dropFirst("$(wildcard ".count).dropLast()))
    guard !file.contains("$"), !MakeWords.isGlob(file) else { return nil }
    var index = lines.index
    var included = false
    while index < lines.lines.count {
      let line = MakeWords.trim(MakefileLines.splitComment(lines.lines[index]).code)
      index += 1
      let keyword = Self.keyword(line)
      let words = MakeWords.split(line).dropFirst().map(MakeWords.normalizedPath)
      if line.isEmpty || keyword == "export" { continue }
      if ["include", "-include", "sinclude"].contains(keyword), words == [file] {
        included = true
        continue
      }
      return keyword == "endif" && included ? file : nil
    }
    return nil
  }

  /// The report entry for a conditional whose lines were read (not one inside a left-out branch).
  mutating func reportConditional(_ conditional: MakeConditional, endLine: Int) {
    let ranges = conditional.branches.indices.map { index in
      let start = conditional.branches[index].line + 1
      let end = (index + 1 < conditional.branches.count ? conditional.branches[index + 1].line : endLine) - 1
      return end >= start ? (start == end ? "line \(start)" : "lines \(start)–\(end)") : "no lines"
    }
    if let guarded = conditional.includeGuard {
      expander.approximate(
        conditional.written, at: conditional.line,
        "decided as if '\(guarded)' exists: kept \(ranges[0]), with the file optional, so a missing one is no error")
    } else if let undecidable = conditional.undecidable {
      let first = conditional.line + 1
      let span = endLine - 1 >= first ? "lines \(first)–\(endLine - 1)" : "no lines"
      expander.notCarried(
        conditional.written, at: conditional.line,
        "depends on \(undecidable), which is not known when importing: left out, with every branch (\(span))")
    } else {
      let kept: String
      if let taken = conditional.takenBranch {
        let label = taken == 0 ? "the first branch" : "the `\(conditional.branches[taken].written)` branch"
        kept = "kept \(label) (\(ranges[taken]))"
      } else {
        kept = "kept no branch"
      }
      expander.approximate(
        conditional.written, at: conditional.line,
        "decided when imported, with the variables as the Makefile sets them and an empty environment: \(kept); "
          + "make decides when it runs, and its environment or command line can change the outcome")
    }
  }
}
