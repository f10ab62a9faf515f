/// Which of the Makefile's variables become params.
///
/// A variable the recipes use becomes a file param, its value in the Makefile the default, and
/// the recipes read it as `${NAME}`: `runner CC=clang` then works as `make CC=clang` does.
/// That holds only where reading it from the environment is the same as make splicing its text
/// into the command, so a param's value must be plain words (no quotes, `$`, globs, `~`, or
/// assignments), must not come from `$(shell …)`, the environment or automatic variables, and
/// the variable must not be needed at import (in a target, a prerequisite, a condition or a
/// function's argument). Every other variable is expanded where it is used.
extension MakefileTaskBuilder {
  /// Names never made params: the shell's and the system's own variables.
  static let reservedNames: Set<String> = [
    "PATH", "HOME", "SHELL", "IFS", "PWD", "OLDPWD", "USER", "LOGNAME", "LANG", "TERM", "TMPDIR", "ENV", "CDPATH",
    "PS1", "PS2", "PS4", "OPTIND", "OPTARG", "HOSTNAME", "MAKE", "MAKEFLAGS", "MAKELEVEL", "MAKEFILE_LIST", "CURDIR",
  ]

  /// Shell words that mean something where make's spliced text would be read as syntax.
  static let shellKeywords: Set<String> = [
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for", "in", "!", "{", "}",
    "time", "function", "select",
  ]

  /// Chooses the params and sets them on the expander.
  mutating func chooseParams() {
    let ownVariables = Set(reader.targetVariables.values.flatMap(\.keys))
    var candidates: [String: (line: Int, value: String, from: Set<String>)] = [:]
    for (name, line) in expander.recipeReferenced {
      guard !expander.importTouched.contains(name), !Self.reservedNames.contains(name), !name.hasPrefix("RUNNER_"),
        !ownVariables.contains(name), MakeWords.isShellName(name), let variable = expander.variables[name],
        !variable.isOverride, let (value, from) = plainValue(name, variable)
      else { continue }
      candidates[name] = (reader.definedAt[name] ?? line, value, from)
    }
    // A variable made from another param is expanded where it is used, reading that param: so
    // setting the param changes it, as in make.
    let names = Set(candidates.keys)
    var chosen = names.filter { candidates[$0]?.from.isDisjoint(with: names) ?? false }
    while true {
      let starting = lineStartParams(chosen).filter { name in
        candidates[name].map { $0.value.first == "@" || $0.value.first == "-" || $0.value.first == "+" } ?? false
      }
      if starting.isEmpty { break }
      chosen.subtract(starting)
    }
    expander.params = chosen
    let ordered = chosen.sorted { (candidates[$0]?.line ?? 0, $0) < (candidates[$1]?.line ?? 0, $1) }
    params = ordered.map { ImportedParam(name: $0, defaultValue: candidates[$0]?.value ?? "") }
    reportVariables(chosen: ordered)
  }

  /// The variable's value when it can be a param's default: plain words, with the variables it
  /// was made from; else nil.
  func plainValue(_ name: String, _ variable: MakeVariable) -> (String, Set<String>)? {
    var probe = expander
    probe.quiet = true
    probe.automatic = nil
    probe.targetVariables = [:]
    probe.params = []
    probe.met = MakeExpander.Met()
    let pieces = probe.expandVariable(name, variable, mode: .definition, line: variable.line)
    let met = probe.met
    guard !met.shell, !met.automatic, !met.environment, !met.wildcard, !met.make, !met.failed else { return nil }
    var text = ""
    for piece in pieces {
      guard case .text(let part) = piece else { return nil }
      text += part
    }
    guard Self.isPlain(text) else { return nil }
    return (text, met.names.subtracting([name]))
  }

  /// True for plain words, which the shell reads from `${NAME}` as make's spliced text would be read.
  static func isPlain(_ value: String) -> Bool {
    guard value.allSatisfy({ $0.isLetter || $0.isNumber || " -_./,:+@=%".contains($0) }) else { return false }
    for word in MakeWords.split(value) {
      if shellKeywords.contains(word) { return false }
      if let equals = word.firstIndex(of: "="), MakeWords.isShellName(String(word[..<equals])) { return false }
    }
    return true
  }

  /// The params some command starts with, with `chosen` as the params.
  mutating func lineStartParams(_ chosen: Set<String>) -> Set<String> {
    let saved = converter
    expander.quiet = true
    expander.params = chosen
    var found = Set<String>()
    for target in targets where !target.recipe.isEmpty {
      expander.targetVariables = reader.targetVariables[target.path] ?? [:]
      found.formUnion(converter.convert(target, automatic: automatic(target), callable: false).lineStartParams)
    }
    converter = saved
    return found
  }

  /// One entry for the variables (params, and those expanded at import), and one for each
  /// `?=` and each of make's built-in variables that the recipes use.
  mutating func reportVariables(chosen: [String]) {
    let used = reachable(Set(expander.recipeReferenced.keys).union(expander.importTouched))
    let own: Set<String> = ["SHELL", "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "VPATH"]
    let inlined = reader.definedAt.filter {
      used.contains($0.key) && !chosen.contains($0.key) && !$0.key.hasPrefix(".") && !own.contains($0.key)
    }
    .sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map(\.key)
    let lines = (chosen + inlined).compactMap { reader.definedAt[$0] }
    if let line = lines.min() {
      var parts: [String] = []
      if !chosen.isEmpty {
        parts.append(
          "\(chosen.joined(separator: ", ")) became params, their values in the Makefile the defaults, so "
            + "`runner \(chosen[0])=…` sets one as `make \(chosen[0])=…` does (a param is also in every "
            + "command's environment)")
      }
      if !inlined.isEmpty {
        parts.append(
          "\(inlined.joined(separator: ", ")) were expanded where they are used (they name files, decide "
            + "conditions, are made from other variables or hold more than plain words), so the command line "
            + "cannot set them")
      }
      expander.approximate("variables", at: line, parts.joined(separator: "; "))
    }
    let exported = Set(reader.exported)
    for assignment in reader.conditionalAssignments
    where used.contains(assignment.name) || exported.contains(assignment.name) || reader.settings.exportAll {
      reportConditionalAssignment(assignment.name, line: assignment.line, tookEffect: assignment.tookEffect)
    }
    let reported = Set(reader.conditionalAssignments.map(\.name))
    for name in chosen where !reported.contains(name) && expander.variables[name]?.origin == .builtin {
      let value = params.first { $0.name == name }?.defaultValue ?? ""
      expander.approximate(
        "$(\(name))", at: expander.recipeReferenced[name] ?? 0,
        "make's built-in \(name) ('\(value)'), which make takes from the environment when it is set there; "
          + "runner from its command line (`runner \(name)=…`)")
    }
  }

  /// `names` and the variables their values are made from.
  func reachable(_ names: Set<String>) -> Set<String> {
    var probe = expander
    probe.quiet = true
    probe.automatic = nil
    probe.targetVariables = [:]
    probe.params = []
    var found = names
    var pending = Array(names)
    while let name = pending.popLast() {
      guard let variable = probe.variables[name] else { continue }
      probe.met = MakeExpander.Met()
      _ = probe.expandVariable(name, variable, mode: .definition, line: variable.line)
      for other in probe.met.names.union(variable.from) where found.insert(other).inserted { pending.append(other) }
    }
    return found
  }

  /// `NAME ?= value`: make takes the environment's value when it has one.
  mutating func reportConditionalAssignment(_ name: String, line: Int, tookEffect: Bool) {
    let isParam = expander.params.contains(name)
    let variable = expander.variables[name]
    if !tookEffect, variable?.origin != .builtin { return }
    let value = params.first { $0.name == name }?.defaultValue
    let written = "\(name) ?="
    if !tookEffect {
      let builtin = MakefileReader.builtins[name]?.value ?? ""
      expander.approximate(
        written, at: line,
        "no effect: make's built-in \(name) ('\(builtin)') is already set, so make keeps it (or takes \(name) "
          + "from the environment); imported as '\(value ?? builtin)'")
    } else if isParam {
      expander.approximate(
        written, at: line,
        "a param: make takes \(name) from the environment when it is set there, runner from its command line "
          + "(`runner \(name)=…`)")
    } else {
      expander.approximate(
        written, at: line,
        "make takes \(name) from the environment or its command line (`make \(name)=…`) when it is set there; "
          + "imported with its value in the Makefile, which runner's command line cannot change")
    }
  }
}
