/// Reads a Makefile as make does, line by line: variables, conditionals, directives and
/// rules. Targets and prerequisites are expanded as they are read; recipes are kept as
/// written, to be expanded with the final values of the variables (as make runs them).
struct MakefileReader {
  let path: String
  var lines: MakefileLines
  var expander: MakeExpander
  var rules: [MakeRule] = []
  var phony: [String] = []
  var settings = MakeSettings()
  /// The first target of the first rule that can be a goal.
  var firstGoal: String?
  /// The first rule, when it was left out (its name not known when importing): make's default
  /// goal, which the import cannot name.
  var leftOutGoal: (written: String, line: Int)?
  var dotenv: [ImportedPath] = []
  /// Exported variables, in the order they were exported.
  var exported: [String] = []
  /// `?=` lines: the variable, where, and whether it took effect.
  var conditionalAssignments: [(name: String, line: Int, tookEffect: Bool)] = []
  /// Pattern rules: their targets' patterns, the rule as written (expanded) and its line.
  var patternRules: [(patterns: [String], written: String, line: Int)] = []
  /// Suffix rules: the pattern of the files they make (`%.o`), the rule as written and its line.
  var suffixRules: [(pattern: String, written: String, line: Int)] = []
  /// Targets `.IGNORE` names.
  var ignoredTargets: Set<String> = []
  /// Variables the Makefile defines, with the line of their first definition.
  var definedAt: [String: Int] = [:]
  /// `target: NAME = value` variables.
  var targetVariables: [String: [String: MakeVariable]] = [:]
  var shell: (value: String, line: Int)?
  var suffixes = MakeWords.knownSuffixes
  var conditionals: [MakeConditional] = []
  /// Comment lines just above the line being read.
  var comments: [String] = []
  var currentRule: Int?
  var recipePrefix: Character = "\t"

  init(path: String, text: String) {
    self.path = path
    lines = MakefileLines(text)
    expander = MakeExpander(
      variables: MakefileReader.builtins, makefileName: String(path.split(separator: "/").last ?? ""),
      report: ImportReport(file: path))
    expander.budget.limit = max(MakeExpander.maximumExpansion, 16 * text.utf8.count)
  }

  /// make's built-in variables that Makefiles use.
  static let builtins: [String: MakeVariable] = {
    let values = [
      "AR": "ar", "ARFLAGS": "rv", "AS": "as", "CC": "cc", "CXX": "g++", "CPP": "$(CC) -E", "FC": "f77",
      "LD": "ld", "LEX": "lex", "YACC": "yacc", "RM": "rm -f", "MAKEINFO": "makeinfo", "TEX": "tex", "PC": "pc",
      "OUTPUT_OPTION": "-o $@", "COMPILE.c": "$(CC) $(CFLAGS) $(CPPFLAGS) $(TARGET_ARCH) -c",
      "COMPILE.cc": "$(CXX) $(CXXFLAGS) $(CPPFLAGS) $(TARGET_ARCH) -c", "COMPILE.cpp": "$(COMPILE.cc)",
      "LINK.c": "$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $(TARGET_ARCH)",
      "LINK.cc": "$(CXX) $(CXXFLAGS) $(CPPFLAGS) $(LDFLAGS) $(TARGET_ARCH)", "LINK.cpp": "$(LINK.cc)",
      "LINK.o": "$(CC) $(LDFLAGS) $(TARGET_ARCH)",
    ]
    return values.mapValues { MakeVariable(value: $0, flavor: .recursive, origin: .builtin, line: 0) }
  }()

  /// True while every enclosing conditional keeps its lines.
  var isActive: Bool { conditionals.allSatisfy(\.active) }

  mutating func read() throws(ImportError) {
    while let physical = lines.peek {
      if physical.first == recipePrefix, let rule = currentRule {
        let recipe = lines.nextRecipeLine(prefix: recipePrefix)
        if isActive { rules[rule].recipe.append(recipe) }
        continue
      }
      let (text, line) = lines.nextLine()
      let (code, comment) = MakefileLines.splitComment(text)
      let trimmed = MakeWords.trim(code)
      if trimmed.isEmpty {
        if let comment { comments.append(comment) } else { comments = [] }
        continue
      }
      if try conditionalDirective(trimmed, line: line) {
        comments = []
        continue
      }
      guard isActive else {
        noteLeftOutAssignment(trimmed, line: line)
        if Self.keyword(trimmed) == "define" { skipDefine() }
        continue
      }
      let pending = comments
      comments = []
      currentRule = nil
      try statement(trimmed, comment: comment, line: line, comments: pending, tabbed: physical.first == recipePrefix)
    }
    if let open = conditionals.last {
      throw ImportError(file: path, line: open.line, "'\(open.keyword)' has no 'endif'")
    }
  }

  /// The first word of a line (`ifeq(` counts as `ifeq`).
  static func keyword(_ text: String) -> String {
    String(text.prefix { !MakeWords.isBlank($0) && $0 != "(" && $0 != "\"" && $0 != "'" })
  }

  /// One line that is not a conditional directive.
  mutating func statement(
    _ text: String, comment: String?, line: Int, comments: [String], tabbed: Bool
  ) throws(ImportError) {
    let keyword = Self.keyword(text)
    let rest = MakeWords.trimLeading(text.dropFirst(keyword.count))
    switch keyword {
    case "define": return try define(rest, line: line, override: false)
    case "endef": throw ImportError(file: path, line: line, "'endef' without 'define'")
    case "include", "-include", "sinclude": return include(rest, optional: keyword != "include", line: line)
    case "undefine":
      expander.variables[MakeWords.trim(expander.value(rest, line: line))] = nil
      return
    case "vpath":
      expander.notCarried(text, at: line, "runner looks for files in the task file's directory only: not carried")
      return
    case "load", "-load":
      expander.notCarried(text, at: line, "make loads an extension here: runner has none")
      return
    default: break
    }
    if try prefixedStatement(keyword, rest, line: line) { return }
    switch Self.classify(text) {
    case .assignment(let name, let operation, let value):
      assign(expander.value(name, line: line), operation, value, line: line)
    case .rule(let targets, let rest, let doubleColon):
      rule(targets, rest, doubleColon: doubleColon, line: line, comment: comment, comments: comments)
    case .other:
      let value = MakeWords.trim(expander.value(text, line: line))
      if !value.isEmpty {
        let what = tabbed ? "a recipe line with no rule before it" : "missing separator ('=' or ':')"
        throw ImportError(file: path, line: line, what)
      }
    }
  }

  /// `export`, `unexport`, `override` and `private` lines; false for anything else.
  mutating func prefixedStatement(_ keyword: String, _ rest: String, line: Int) throws(ImportError) -> Bool {
    switch keyword {
    case "export", "unexport":
      guard case .assignment(let name, let operation, let value) = Self.classify(rest), keyword == "export" else {
        let names = MakeWords.split(expander.value(rest, line: line))
        if names.isEmpty {
          settings.exportAll = keyword == "export"
        } else if keyword == "export" {
          for name in names where !exported.contains(name) { exported.append(name) }
        } else {
          exported.removeAll { names.contains($0) }
        }
        return true
      }
      let expanded = MakeWords.trim(expander.value(name, line: line))
      assign(expanded, operation, value, line: line)
      if !exported.contains(expanded) { exported.append(expanded) }
      return true
    case "override":
      if Self.keyword(rest) == "define" {
        try define(MakeWords.trimLeading(rest.dropFirst("define".count)), line: line, override: true)
        return true
      }
      guard case .assignment(let name, let operation, let value) = Self.classify(rest) else { return false }
      assign(expander.value(name, line: line), operation, value, line: line, override: true)
      return true
    case "private":
      guard case .assignment(let name, let operation, let value) = Self.classify(rest) else { return false }
      assign(expander.value(name, line: line), operation, value, line: line)
      return true
    default: return false
    }
  }

  // MARK: Lines

  /// What a line is.
  enum Statement {
    case assignment(name: String, operation: String, value: String)
    case rule(targets: String, rest: String, doubleColon: Bool)
    case other
  }

  /// An assignment (`NAME op value`), a rule (`targets: …`) or neither, by the first
  /// operator outside `$(…)`.
  static func classify(_ text: String) -> Statement {
    let chars = Array(text)
    var depth = 0
    var index = 0
    func after(_ count: Int) -> String { String(chars[min(chars.count, index + count)...]) }
    func next(_ offset: Int) -> Character? { index + offset < chars.count ? chars[index + offset] : nil }
    while index < chars.count {
      let character = chars[index]
      switch character {
      case "(", "{": depth += 1
      case ")", "}": depth = max(0, depth - 1)
      case _ where depth > 0: break
      case "=":
        return .assignment(name: String(chars[..<index]), operation: "=", value: MakeWords.trimLeading(after(1)))
      case "?", "+", "!":
        if next(1) == "=" {
          return .assignment(
            name: String(chars[..<index]), operation: "\(character)=", value: MakeWords.trimLeading(after(2)))
        }
      case ":":
        for operation in [":=", "::=", ":::="] where String(chars[index...].prefix(operation.count)) == operation {
          return .assignment(
            name: String(chars[..<index]), operation: operation,
            value: MakeWords.trimLeading(after(operation.count)))
        }
        let double = next(1) == ":"
        return .rule(targets: String(chars[..<index]), rest: after(double ? 2 : 1), doubleColon: double)
      default: break
      }
      index += 1
    }
    return .other
  }

  /// `define NAME [op]` … `endef`: a variable of several lines.
  mutating func define(_ header: String, line: Int, override: Bool) throws(ImportError) {
    var body: [String] = []
    var depth = 0
    var closed = false
    while let physical = lines.peek {
      lines.index += 1
      let keyword = Self.keyword(MakeWords.trim(physical))
      if keyword == "define" { depth += 1 }
      if keyword == "endef" {
        if depth == 0 {
          closed = true
          break
        }
        depth -= 1
      }
      body.append(physical)
    }
    guard closed else { throw ImportError(file: path, line: line, "'define' has no 'endef'") }
    var name = MakeWords.trim(header)
    var operation = "="
    for candidate in ["::=", ":=", "+=", "?=", "!=", "="] where name.hasSuffix(candidate) {
      operation = candidate
      name = MakeWords.trim(name.dropLast(candidate.count))
      break
    }
    assign(expander.value(name, line: line), operation, body.joined(separator: "\n"), line: line, override: override)
  }

  /// Skips a `define` block inside a conditional branch that is left out.
  mutating func skipDefine() {
    var depth = 0
    while let physical = lines.peek {
      lines.index += 1
      let keyword = Self.keyword(MakeWords.trim(physical))
      if keyword == "define" { depth += 1 }
      if keyword == "endef" {
        if depth == 0 { return }
        depth -= 1
      }
    }
  }

  /// `include`, `-include`: a `.env` file becomes `dotenv`, anything else is reported.
  mutating func include(_ text: String, optional: Bool, line: Int) {
    let optionalIncludes = conditionals.contains { $0.includeGuard != nil }
    for word in MakeWords.split(expander.value(text, line: line)) {
      let name = MakeWords.file(word)
      let keyword = optional ? "-include" : "include"
      if name.hasPrefix(".env") || name.hasSuffix(".env") {
        let isOptional = optional || optionalIncludes
        dotenv.append(ImportedPath(MakeWords.normalizedPath(word), optional: isOptional))
        expander.approximate(
          "\(keyword) \(word)", at: line,
          "read as a .env file (`dotenv:`): its variables reach the commands through the environment, so "
            + "the Makefile's $(NAME) references to them became ${NAME} (make reads the file as Makefile lines: "
            + "quotes stay part of the values, and it can set make's own variables)")
      } else if MakeWords.suffix(word) == ".d" {
        expander.notCarried(
          "\(keyword) \(word)", at: line,
          "dependency files the compiler writes (-MMD): runner does not read them; list the headers in the "
            + "tasks' sources")
      } else {
        expander.notCarried(
          "\(keyword) \(word)", at: line,
          "not read: import it too (`runner import \(word)`) and add the result under `includes:`; its "
            + "variables and rules are not seen here")
      }
    }
  }
}
