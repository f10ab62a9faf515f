/// Expands make's `$(…)` references at import, as make would, into pieces: text, and what
/// only the shell can work out when a command runs (`$(shell …)`, environment variables).
struct MakeExpander {
  /// Where the text goes.
  enum Mode: Sendable {
    /// A recipe: params become `${NAME}`, automatic variables have the target's values.
    case recipe
    /// A `:=` value: the variables it reads are needed at import only if it is.
    case definition
    /// Anything make needs the value of while reading: targets, prerequisites, conditions,
    /// function arguments.
    case value
  }

  /// What expansions met since `met` was last reset.
  struct Met: Sendable {
    var shell = false
    var wildcard = false
    var automatic = false
    var targetName = false
    var make = false
    var environment = false
    /// A variable that refers to itself, or text nested too deeply.
    var failed = false
    /// Variables whose values were read.
    var names: Set<String> = []
    /// A value needed now but known only when the command runs (an environment variable inside
    /// a function, `$(shell)` output): what it is, for the failing command that stands in.
    var unknown: String?
    /// `$(error …)` met in a recipe: make's message, with which it stops before the recipe runs.
    var stop: String?
  }

  var variables: [String: MakeVariable]
  /// The Makefile's name as given (`$(MAKEFILE_LIST)`).
  let makefileName: String
  var report: ImportReport
  /// No report entries (a trial expansion).
  var quiet = false
  /// The target whose recipe is expanded.
  var automatic: MakeAutomatic?
  /// The target's own variables (`target: NAME = value`).
  var targetVariables: [String: MakeVariable] = [:]
  /// Variables imported as params.
  var params: Set<String> = []
  /// `foreach` variables and `call` arguments, innermost last.
  var locals: [[String: String]] = []
  /// Variables whose value was needed while importing (they cannot be params).
  var importTouched: Set<String> = []
  /// Variables a recipe names, with the first line that does.
  var recipeReferenced: [String: Int] = [:]
  var met = Met()
  /// Pieces that a simple variable's text holds as `$(\u{1}N)` markers.
  var stored: [MakePiece] = []
  /// Variables defined only in branches of conditionals that could not be decided, with the line.
  var leftOut: [String: Int] = [:]
  /// The recursive variables being expanded (a variable that refers to itself is an error).
  var expanding: [String] = []
  /// Characters expanded so far (`expand`'s bound), shared with every copy.
  let budget = Budget()

  static let marker: Character = "\u{1}"

  init(variables: [String: MakeVariable], makefileName: String, report: ImportReport) {
    self.variables = variables
    self.makefileName = makefileName
    self.report = report
  }

  mutating func approximate(_ construct: String, at line: Int, _ reason: String) {
    if !quiet { report.approximate(construct, at: line, reason) }
  }

  mutating func notCarried(_ construct: String, at line: Int, _ reason: String) {
    if !quiet { report.notCarried(construct, at: line, reason) }
  }

  // MARK: Expanding

  /// How deep expansions are nested (a reference inside a reference, a variable's value).
  var depth = 0

  /// `expand` without its bounds (MakefileExpander+Budget.swift): what it does.
  mutating func expandUnbounded(_ text: String, line: Int, mode: Mode) -> [MakePiece] {
    depth += 1
    defer { depth -= 1 }
    let chars = Array(text)
    var out: [MakePiece] = []
    var literal = ""
    var index = 0
    while index < chars.count {
      let character = chars[index]
      guard character == "$", index + 1 < chars.count else {
        if character != "$" { literal.append(character) }
        index += 1
        continue
      }
      let next = chars[index + 1]
      if next == "$" {
        literal.append("$")
        index += 2
        continue
      }
      var body: String
      var written: String
      if next == "(" || next == "{" {
        let close: Character = next == "(" ? ")" : "}"
        guard let end = Self.closing(chars, from: index + 2, open: next, close: close) else {
          notCarried(String(chars[index...]), at: line, "unterminated variable reference: left out")
          break
        }
        body = String(chars[(index + 2)..<end])
        written = String(chars[index...end])
        index = end + 1
      } else {
        body = String(next)
        written = "$" + body
        index += 2
      }
      Self.append(.text(literal), to: &out)
      literal = ""
      for piece in reference(body, written: written, line: line, mode: mode) { Self.append(piece, to: &out) }
    }
    Self.append(.text(literal), to: &out)
    return out
  }

  /// Expands `text` and gives its value as text: what the shell would work out is taken as
  /// empty, and reported.
  mutating func value(_ text: String, line: Int) -> String {
    flatten(expand(text, line: line, mode: .value))
  }

  /// The text of `pieces`, reporting what cannot be known at import.
  mutating func flatten(_ pieces: [MakePiece]) -> String {
    var out = ""
    for piece in pieces {
      switch piece {
      case .text(let text): out += text
      case .glob(let text, _): out += text
      case .param(let name): out += "${\(name)}"
      case .variable(let variable):
        approximate(variable.written, at: variable.line, variable.importReason)
        out += variable.importValue
        met.unknown = met.unknown ?? variable.written
      case .shell(let command):
        met.shell = true
        met.unknown = met.unknown ?? command.written
        notCarried(
          command.written, at: command.line,
          "its output is needed when importing (in a target, a prerequisite, a condition or a function's "
            + "argument): taken as empty")
      }
    }
    return out
  }

  /// The index of the `close` that ends a reference opened just before `start`, or nil.
  static func closing(_ chars: [Character], from start: Int, open: Character, close: Character) -> Int? {
    var depth = 1
    var index = start
    while index < chars.count {
      if chars[index] == open {
        depth += 1
      } else if chars[index] == close {
        depth -= 1
        if depth == 0 { return index }
      }
      index += 1
    }
    return nil
  }

  /// Appends `piece`, merging neighbouring text and dropping empty text.
  static func append(_ piece: MakePiece, to pieces: inout [MakePiece]) {
    guard case .text(let text) = piece else {
      pieces.append(piece)
      return
    }
    if text.isEmpty { return }
    if case .text(let previous)? = pieces.last {
      pieces[pieces.count - 1] = .text(previous + text)
    } else {
      pieces.append(piece)
    }
  }

  /// One `$(…)`, `${…}` or `$X`.
  mutating func reference(_ body: String, written: String, line: Int, mode: Mode) -> [MakePiece] {
    if body.first == Self.marker {
      guard let index = Int(body.dropFirst()), stored.indices.contains(index) else { return [] }
      switch stored[index] {
      case .shell: met.shell = true
      case .glob: met.wildcard = true
      default: break
      }
      return [stored[index]]
    }
    if let (name, arguments) = Self.functionCall(body) {
      return function(name, arguments, written: written, line: line, mode: mode)
    }
    if let (variable, from, to) = Self.substitutionReference(body) {
      let name = value(variable, line: line)
      let words = MakeWords.split(flatten(lookup(name, written: written, line: line, mode: .value)))
      let pattern = from.contains("%") ? from : "%" + from
      let replacement = from.contains("%") ? to : "%" + to
      return [
        .text(
          words.map { MakeWords.substitute($0, pattern: pattern, replacement: replacement) }.joined(separator: " "))
      ]
    }
    let name = body.contains("$") ? value(body, line: line) : body
    return lookup(name, written: written, line: line, mode: mode)
  }

  /// `name arguments` when `body` calls one of make's functions.
  static func functionCall(_ body: String) -> (String, String)? {
    guard let space = body.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return nil }
    let name = String(body[..<space])
    guard MakeFunctions.names.contains(name) else { return nil }
    return (name, MakeWords.trimLeading(body[space...]))
  }

  /// `VAR:from=to`, split, or nil.
  static func substitutionReference(_ body: String) -> (String, String, String)? {
    var depth = 0
    for (offset, character) in body.enumerated() {
      switch character {
      case "(", "{": depth += 1
      case ")", "}": depth -= 1
      case ":" where depth == 0:
        let rest = body.dropFirst(offset + 1)
        guard let equals = rest.firstIndex(of: "=") else { return nil }
        return (String(body.prefix(offset)), String(rest[..<equals]), String(rest[rest.index(after: equals)...]))
      default: break
      }
    }
    return nil
  }

  // MARK: Variables

  static let automaticNames: Set<String> = [
    "@", "<", "^", "+", "|", "?", "*", "%", "@D", "@F", "<D", "<F", "^D", "^F", "+D", "+F", "|D", "|F", "?D",
    "?F", "*D", "*F",
  ]

  /// The value of variable `name`.
  mutating func lookup(_ name: String, written: String, line: Int, mode: Mode) -> [MakePiece] {
    if Self.automaticNames.contains(name) { return [.text(automaticValue(name, written: written, line: line))] }
    for scope in locals.reversed() {
      if let value = scope[name] { return expand(value, line: line, mode: mode) }
    }
    if mode == .recipe, params.contains(name), targetVariables[name] == nil {
      if recipeReferenced[name] == nil { recipeReferenced[name] = line }
      return [.param(name)]
    }
    if let variable = targetVariables[name] ?? variables[name] {
      return expandVariable(name, variable, mode: mode, line: line)
    }
    return special(name, written: written, line: line, mode: mode)
  }

  /// A defined variable's value, read in `mode`.
  mutating func expandVariable(_ name: String, _ variable: MakeVariable, mode: Mode, line: Int) -> [MakePiece] {
    met.names.insert(name)
    if variable.unknown { met.shell = true }
    switch mode {
    case .value: touch(name)
    case .recipe: if recipeReferenced[name] == nil { recipeReferenced[name] = line }
    case .definition: break
    }
    guard !expanding.contains(name), expanding.count < 64 else {
      met.failed = true
      notCarried("$(\(name))", at: line, "the variable refers to itself (make stops here): taken as empty")
      return []
    }
    expanding.append(name)
    defer { expanding.removeLast() }
    var text = variable.value
    if mode != .value, variable.stable, let definition = variable.definition,
      variable.from.isDisjoint(with: targetVariables.keys)
    {
      text = definition
    }
    return expand(text, line: variable.line == 0 ? line : variable.line, mode: mode)
  }

  /// Marks `name` as needed at import, and the variables its value was made from.
  mutating func touch(_ name: String) {
    guard importTouched.insert(name).inserted else { return }
    for other in (targetVariables[name] ?? variables[name])?.from ?? [] { touch(other) }
  }

  /// make's own variables, and those the Makefile does not define.
  mutating func special(_ name: String, written: String, line: Int, mode: Mode) -> [MakePiece] {
    switch name {
    case "MAKE", "MAKE_COMMAND":
      met.make = true
      return [.text("make")]
    case "MAKEFILE_LIST":
      approximate(
        written, at: line,
        "the Makefile's name, '\(makefileName)' (runner does not read the Makefile: `runner --list` lists the "
          + "tasks with their descriptions)")
      return [.text(makefileName)]
    case "CURDIR":
      let variable = MakeShellVariable(
        name: "PWD", line: line, written: written,
        commandReason: "the shell's $PWD: the task file's directory until a command changes directory",
        importValue: ".", importReason: "taken as '.', the task file's directory")
      return mode == .value ? [.text(flatten([.variable(variable)]))] : [.variable(variable)]
    case "SHELL":
      return [.text("/bin/sh")]
    case ".DEFAULT_GOAL", "MAKECMDGOALS", "MAKEFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "MFLAGS", ".VARIABLES",
      ".FEATURES", ".INCLUDE_DIRS", "MAKE_VERSION", "MAKE_HOST", "SUFFIXES", ".RECIPEPREFIX", ".SHELLFLAGS":
      notCarried(written, at: line, "make's own variable: runner has no equivalent, taken as empty")
      return []
    default:
      guard MakeWords.isShellName(name) else { return [] }
      met.environment = true
      if let defined = leftOut[name] {
        met.shell = true
        let branch = "defined only in a conditional branch that was left out (line \(defined))"
        let variable = MakeShellVariable(
          name: name, line: line, written: written,
          commandReason: "\(branch): read from the environment when the command runs",
          importValue: "", importReason: "\(branch): taken as empty when imported")
        return [.variable(variable)]
      }
      let variable = MakeShellVariable(
        name: name, line: line, written: written,
        commandReason:
          "not defined in the Makefile: read from the environment when the command runs (make also takes it "
          + "from its command line; runner's command line sets params only)",
        importValue: "",
        importReason:
          "not defined in the Makefile: taken as empty when imported (make would read it from the environment "
          + "or its command line)")
      return [.variable(variable)]
    }
  }

  /// `$@`, `$<`, `$^`, … for the target whose recipe is expanded; empty elsewhere (as make).
  mutating func automaticValue(_ name: String, written: String, line: Int) -> String {
    met.automatic = true
    guard let automatic else { return "" }
    let letter = String(name.prefix(1))
    let part = name.dropFirst()
    var words: [String]
    switch letter {
    case "@":
      met.targetName = true
      words = [automatic.target]
    case "<": words = Array(automatic.prerequisites.prefix(1))
    case "^": words = MakeWords.unique(automatic.prerequisites)
    case "+": words = automatic.prerequisites
    case "|": words = MakeWords.unique(automatic.orderOnly)
    case "?":
      approximate(
        written, at: line,
        "all the prerequisites, as $^: make lists only those newer than the target (runner does not track "
          + "which changed)")
      words = MakeWords.unique(automatic.prerequisites)
    case "*": words = automatic.stem.isEmpty ? [] : [automatic.stem]
    default:
      notCarried(written, at: line, "an archive member (`lib.a(member)` targets): not carried, taken as empty")
      words = []
    }
    if part == "D" { words = words.map(MakeWords.automaticDirectory) }
    if part == "F" { words = words.map(MakeWords.file) }
    return words.joined(separator: " ")
  }

  // MARK: Simple variables

  /// Make text that expands to `pieces` again: `$` doubled, other pieces kept as markers.
  mutating func storedText(_ pieces: [MakePiece]) -> String {
    var out = ""
    for piece in pieces {
      if case .text(let text) = piece {
        out += text.replacing("$", with: "$$")
        continue
      }
      var kept = piece
      if case .shell(var command) = piece {
        command.once = true
        kept = .shell(command)
      }
      out += "$(\(Self.marker)\(stored.count))"
      stored.append(kept)
    }
    return out
  }

  /// Expands `text` as a `:=` value: the text to keep, and the variables it read.
  mutating func simpleValue(_ text: String, line: Int) -> (value: String, from: Set<String>, unknown: Bool) {
    let outer = met
    met = Met()
    let pieces = expand(text, line: line, mode: .definition)
    let inner = met
    met = outer
    met.names.formUnion(inner.names)
    met.shell = met.shell || inner.shell
    met.wildcard = met.wildcard || inner.wildcard
    met.environment = met.environment || inner.environment
    return (storedText(pieces), inner.names, inner.shell)
  }
}
