/// Variables and rules as the reader meets them.
extension MakefileReader {
  /// A variable assignment (`=`, `:=`, `::=`, `?=`, `+=`, `!=`).
  mutating func assign(_ name: String, _ operation: String, _ value: String, line: Int, override: Bool = false) {
    let name = MakeWords.trim(name)
    guard !name.isEmpty else { return }
    let existing = expander.variables[name]
    if existing?.isOverride == true, !override { return }
    guard let variable = assigned(existing, operation, value, line: line) else {
      conditionalAssignments.append((name, line, false))
      return
    }
    if operation == "?=" { conditionalAssignments.append((name, line, true)) }
    var kept = variable
    kept.isOverride = override || existing?.isOverride == true
    expander.variables[name] = kept
    if definedAt[name] == nil { definedAt[name] = line }
    special(name, line: line)
  }

  /// The variable an assignment makes of `existing`, or nil when `?=` leaves it as it is.
  mutating func assigned(_ existing: MakeVariable?, _ operation: String, _ value: String, line: Int) -> MakeVariable? {
    switch operation {
    case ":=", "::=", ":::=":
      let (stored, from, unknown) = expander.simpleValue(value, line: line)
      return MakeVariable(
        value: stored, flavor: .simple, origin: .file, line: line, definition: value, from: from, unknown: unknown)
    case "?=":
      guard existing == nil else { return nil }
      return MakeVariable(value: value, flavor: .recursive, origin: .file, line: line)
    case "+=":
      guard let existing else { return MakeVariable(value: value, flavor: .recursive, origin: .file, line: line) }
      guard existing.flavor == .simple else {
        return MakeVariable(
          value: Self.joined(existing.value, value), flavor: .recursive, origin: .file, line: line,
          unknown: existing.unknown)
      }
      let (added, from, unknown) = expander.simpleValue(value, line: line)
      return MakeVariable(
        value: Self.joined(existing.value, added), flavor: .simple, origin: .file, line: line,
        definition: existing.definition.map { Self.joined($0, value) }, from: existing.from.union(from),
        unknown: existing.unknown || unknown)
    case "!=":
      let command = MakeShellCommand(
        command: expander.expand(value, line: line, mode: .value), line: line, written: "!= \(value)", once: true)
      return MakeVariable(
        value: expander.storedText([.shell(command)]), flavor: .simple, origin: .file, line: line)
    default:
      return MakeVariable(value: value, flavor: .recursive, origin: .file, line: line)
    }
  }

  /// `+=`: the two texts with a space between, unless one is empty.
  static func joined(_ first: String, _ second: String) -> String {
    first.isEmpty ? second : (second.isEmpty ? first : first + " " + second)
  }

  /// Variables that set something of make's own.
  mutating func special(_ name: String, line: Int) {
    switch name {
    case "SHELL":
      shell = (MakeWords.trim(expander.value("$(SHELL)", line: line)), line)
    case ".SHELLFLAGS":
      settings.shellFlags = (MakeWords.trim(expander.value("$(.SHELLFLAGS)", line: line)), line)
    case ".RECIPEPREFIX":
      recipePrefix = expander.value("$(.RECIPEPREFIX)", line: line).first ?? "\t"
    case "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS":
      expander.notCarried(
        name, at: line, "make's own options: not carried (runner takes its options from its command line)")
    case "VPATH":
      expander.notCarried(name, at: line, "runner looks for files in the task file's directory only: not carried")
    default: break
    }
  }

  // MARK: Rules

  static let specialTargets: Set<String> = [
    ".PHONY", ".SUFFIXES", ".DEFAULT", ".PRECIOUS", ".INTERMEDIATE", ".NOTINTERMEDIATE", ".SECONDARY",
    ".SECONDEXPANSION", ".DELETE_ON_ERROR", ".IGNORE", ".LOW_RESOLUTION_TIME", ".SILENT", ".EXPORT_ALL_VARIABLES",
    ".NOTPARALLEL", ".ONESHELL", ".POSIX", ".WAIT",
  ]

  /// `targets: prerequisites | order-only ; recipe`, a static pattern rule, or a target's own variable.
  mutating func rule(
    _ targetsText: String, _ rest: String, doubleColon: Bool, line: Int, comment: String?, comments: [String]
  ) {
    var prerequisitesText = rest
    var inlineRecipe: String?
    if let semicolon = Self.topLevelIndex(of: ";", in: rest) {
      prerequisitesText = String(rest[..<semicolon])
      inlineRecipe = String(rest[rest.index(after: semicolon)...])
    }
    let outerMet = expander.met
    expander.met = MakeExpander.Met()
    let targets = MakeWords.paths(expander.value(targetsText, line: line))
    let unknownTarget = expander.met.shell
    expander.met = outerMet
    guard !targets.isEmpty else { return }
    if inlineRecipe == nil, targetVariable(targets, prerequisitesText, line: line) { return }
    var kind = MakeRule.Kind.explicit
    if case .rule(let pattern, let patterns, _) = Self.classify(prerequisitesText) {
      let target = MakeWords.trim(expander.value(pattern, line: line))
      kind = .staticPattern(target: target, prerequisites: [])
      prerequisitesText = patterns
    }
    let expanded = expander.value(prerequisitesText, line: line)
    let parts = expanded.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
    let prerequisites = MakeWords.paths(parts.first ?? "")
    let orderOnly = parts.count > 1 ? MakeWords.paths(parts[1]) : []
    if case .staticPattern(let target, _) = kind { kind = .staticPattern(target: target, prerequisites: prerequisites) }
    var rule = MakeRule(
      targets: targets, prerequisites: prerequisites, orderOnly: orderOnly, line: line,
      description: Self.description(comment: comment, comments: comments), kind: kind)
    classifySpecial(&rule, doubleColon: doubleColon, text: targetsText)
    if unknownTarget, case .explicit = rule.kind {
      rule.kind = .ignored
      if firstGoal == nil, leftOutGoal == nil { leftOutGoal = (MakeWords.trim(targetsText), line) }
      expander.notCarried(
        MakeWords.trim(targetsText), at: line,
        "the target's name depends on a value not known when importing ($(shell …) output, or a variable "
          + "set only in a conditional that was left out): the rule is left out")
    }
    if let inlineRecipe { rule.recipe.append(MakeRecipeLine(text: MakeWords.trimLeading(inlineRecipe), line: line)) }
    if firstGoal == nil, leftOutGoal == nil, case .explicit = rule.kind {
      firstGoal = targets.first { !$0.hasPrefix(".") || $0.contains("/") }
    } else if firstGoal == nil, leftOutGoal == nil, case .staticPattern = rule.kind {
      firstGoal = targets.first { !$0.hasPrefix(".") || $0.contains("/") }
    }
    rules.append(rule)
    currentRule = rules.count - 1
    if targets == [".PHONY"] { self.comments = comments }
  }

  /// Marks special, pattern, suffix and double-colon rules, handling or reporting each.
  mutating func classifySpecial(_ rule: inout MakeRule, doubleColon: Bool, text: String) {
    let written = MakeWords.trim(text)
    if let first = rule.targets.first, Self.specialTargets.contains(first) {
      rule.kind = .special
      for target in rule.targets { specialTarget(target, rule.prerequisites, line: rule.line) }
    } else if rule.targets.contains(where: { $0.contains("%") }) {
      rule.kind = .ignored
      let orderOnly = rule.orderOnly.isEmpty ? "" : " | " + rule.orderOnly.joined(separator: " ")
      let written = MakeWords.trim(
        "\(rule.targets.joined(separator: " ")): \(rule.prerequisites.joined(separator: " "))\(orderOnly)")
      patternRules.append((rule.targets.filter { $0.contains("%") }, written, rule.line))
    } else if rule.targets.count == 1, rule.prerequisites.isEmpty, let suffixes = suffixRule(rule.targets[0]) {
      rule.kind = .ignored
      if !suffixes.1.isEmpty { suffixRules.append(("%" + suffixes.1, written, rule.line)) }
      expander.notCarried(
        written, at: rule.line,
        "a suffix rule, like the pattern rule `%\(suffixes.1): %\(suffixes.0)`: runner has no implicit rules, "
          + "so the files it would make need a task each")
    } else if doubleColon {
      rule.kind = .ignored
      expander.notCarried(
        written, at: rule.line,
        "a double-colon rule (`\(written)::`; make runs each such rule on its own, when its own prerequisites "
          + "changed): not carried; write one task")
    }
  }

  /// The two suffixes of a suffix rule target (`.c.o` → `.c`, `.o`; `.c` → `.c`, ``), or nil.
  func suffixRule(_ target: String) -> (String, String)? {
    for first in suffixes where target.hasPrefix(first) {
      let second = String(target.dropFirst(first.count))
      if second.isEmpty || suffixes.contains(second) { return (first, second) }
    }
    return nil
  }

  /// A special target's effect.
  mutating func specialTarget(_ target: String, _ prerequisites: [String], line: Int) {
    switch target {
    case ".PHONY":
      for name in prerequisites where !phony.contains(name) { phony.append(name) }
    case ".SUFFIXES":
      suffixes = prerequisites.isEmpty ? [] : suffixes + prerequisites
    case ".ONESHELL": settings.oneShell = line
    case ".NOTPARALLEL": settings.notParallel = line
    case ".DELETE_ON_ERROR": settings.deleteOnError = line
    case ".EXPORT_ALL_VARIABLES": settings.exportAll = true
    case ".IGNORE":
      if prerequisites.isEmpty { settings.ignoreErrors = true } else { ignoredTargets.formUnion(prerequisites) }
    case ".POSIX":
      if settings.shellFlags == nil { settings.shellFlags = ("-ec", line) }
    case ".DEFAULT":
      expander.notCarried(
        ".DEFAULT", at: line, "the recipe make runs for files that have no rule: runner has no equivalent")
    case ".SECONDEXPANSION":
      expander.notCarried(
        ".SECONDEXPANSION", at: line, "prerequisites expanded a second time ($$@) are not carried")
    case ".INTERMEDIATE":
      expander.notCarried(
        ".INTERMEDIATE", at: line,
        "make deletes these files once the targets that need them are made; runner keeps them")
    case ".WAIT":
      expander.notCarried(".WAIT", at: line, "runner orders tasks by their deps only: add the deps this order needs")
    default: break
    }
  }

  /// `target: NAME = value`: the target's own variable; false when the text is no assignment.
  mutating func targetVariable(_ targets: [String], _ text: String, line: Int) -> Bool {
    var rest = MakeWords.trim(text)
    var override = false
    while ["override", "export", "private"].contains(Self.keyword(rest)) {
      override = override || Self.keyword(rest) == "override"
      rest = MakeWords.trimLeading(rest.dropFirst(Self.keyword(rest).count))
    }
    guard case .assignment(let rawName, let operation, let value) = Self.classify(rest) else { return false }
    let name = MakeWords.trim(expander.value(rawName, line: line))
    for target in targets {
      let existing = targetVariables[target]?[name] ?? expander.variables[name]
      guard var variable = assigned(existing, operation, value, line: line) else { continue }
      variable.isOverride = override
      targetVariables[target, default: [:]][name] = variable
    }
    expander.approximate(
      "\(targets.joined(separator: " ")): \(name) \(operation)", at: line,
      "applies to this target's recipe only (make also applies it to the prerequisites it makes for it)")
    return true
  }

  /// The index of the first `character` outside `$(…)` in `text`.
  static func topLevelIndex(of character: Character, in text: String) -> String.Index? {
    var depth = 0
    for index in text.indices {
      switch text[index] {
      case "(", "{": depth += 1
      case ")", "}": depth = max(0, depth - 1)
      case character where depth == 0: return index
      default: break
      }
    }
    return nil
  }

  /// A rule's description: its `## text` comment, else the comment lines just above it.
  static func description(comment: String?, comments: [String]) -> String? {
    if let comment, comment.hasPrefix("#") {
      let text = cleaned(comment)
      if !text.isEmpty { return text }
    }
    // A banner ends the description: only the lines after the last one describe the rule.
    var texts: [String] = []
    for comment in comments {
      let text = cleaned(comment)
      if isBanner(comment) {
        texts = []
      } else if !text.isEmpty {
        texts.append(text)
      }
    }
    return texts.isEmpty ? nil : texts.joined(separator: " ")
  }

  /// A comment's text without its `#` marks; empty for a line of rules (`-----`, `=====`).
  static func cleaned(_ comment: String) -> String {
    let text = MakeWords.trim(comment.drop { $0 == "#" })
    return text.allSatisfy({ "-=*#_~+".contains($0) || MakeWords.isBlank($0) }) ? "" : text
  }

  /// A comment that heads a part of the file rather than describing the rule below it: a line
  /// of rules, a title between rules (`#### SSL rules ####`, `# --- Build ---`), mostly
  /// punctuation, or a line that introduces a block (`# Binaries:`).
  static func isBanner(_ comment: String) -> Bool {
    let decoration: (Character) -> Bool = { "-=*#_~+/<>|".contains($0) }
    let text = MakeWords.trim(comment.drop { $0 == "#" })
    if text.isEmpty { return false }
    if text.hasSuffix(":") { return true }
    let trailing = text.reversed().prefix(while: { decoration($0) || MakeWords.isBlank($0) })
      .filter(decoration).count
    let leading = text.prefix(while: { decoration($0) || MakeWords.isBlank($0) }).filter(decoration).count
    if trailing >= 3 || (leading >= 3 && trailing >= 1) { return true }
    let visible = text.filter { !MakeWords.isBlank($0) }
    let words = visible.filter { $0.isLetter || $0.isNumber }
    return words.count * 2 < visible.count
  }
}
