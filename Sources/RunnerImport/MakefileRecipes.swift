/// A target's recipe as runner commands.
struct MakeConvertedRecipe: Sendable {
  var commands: [ImportedCommand] = []
  /// The recipe names its target (`$@`, or the path written out): it makes that file.
  var writesTarget = false
  /// The recipe asks for a terminal (`docker run -it`, `read`).
  var interactive = false
  /// Params a command starts with (a value starting with `@`, `-` or `+` must be inlined).
  var lineStartParams: Set<String> = []
}

/// Converts recipes: expands each line with the target's automatic variables, strips make's
/// prefixes (`@`, `-`, `+`), and renders what only the shell can work out.
struct MakeRecipeConverter {
  var expander: MakeExpander
  /// The targets of the Makefile that became tasks: path → task name.
  var taskNames: [String: String]
  var settings: MakeSettings
  var ignoredTargets: Set<String>
  var shellName: String
  /// Shell variables already reported (each once).
  var reportedVariables: Set<String> = []
  /// The first recipe line with several commands, where `sh -e` differs from make's `sh -c`.
  var firstCompound: Int?

  /// `target`'s recipe as commands; `callable`: a `$(MAKE) TARGET` line may become a task call.
  mutating func convert(_ target: MakeTarget, automatic: MakeAutomatic, callable: Bool) -> MakeConvertedRecipe {
    expander.automatic = automatic
    defer { expander.automatic = nil }
    var result = MakeConvertedRecipe()
    var scripts: [(text: String, ignore: Bool, line: Int)] = []
    for line in target.recipe {
      expander.met = MakeExpander.Met()
      var out = ""
      render(expander.expand(line.text, line: line.line, mode: .recipe), into: &out)
      // A value known only when the command runs may be what decides the error (`$(if $(ENV),,$(error …))`).
      if let stop = expander.met.stop, expander.met.unknown == nil {
        // make expands the whole recipe before running it: the error stops it before any line.
        result.commands = [.shell("echo \(MakefileTaskBuilder.shellQuoted(stop)) >&2; exit 2")]
        return result
      }
      if let unknown = expander.met.unknown {
        let message =
          "runner import: \(expander.makefileName):\(line.line): not carried over: \(unknown): "
          + "its value is known only when the command runs"
        result.commands.append(.shell("echo \(MakefileTaskBuilder.shellQuoted(message)) >&2; exit 1"))
        continue
      }
      if expander.met.targetName { result.writesTarget = true }
      let usedMake = expander.met.make
      for command in Self.commandLines(out) {
        let (text, ignore) = Self.stripPrefixes(command)
        if text.isEmpty || (text.hasPrefix("#") && !text.contains("\n")) { continue }
        let ignored = ignore || settings.ignoreErrors || ignoredTargets.contains(target.path)
        for param in expander.params where text.hasPrefix("${\(param)}") { result.lineStartParams.insert(param) }
        if Self.containsWord(target.path, in: text), target.path.contains(where: { $0 == "/" || $0 == "." }) {
          result.writesTarget = true
        }
        if Self.asksForTerminal(text) { result.interactive = true }
        let mayCall = callable && !ignored && settings.oneShell == nil
        let runsMake = usedMake || Self.runsMake(text)
        if runsMake,
          let calls = makeCalls(text, line: line.line, callable: mayCall, written: usedMake ? "$(MAKE)" : "make")
        {
          result.commands += calls
          continue
        }
        scripts.append((text, ignored, line.line))
        result.commands.append(.shell(ignored ? Self.ignoringErrors(text) : text))
      }
    }
    if settings.oneShell != nil, scripts.count > 1 {
      let ignore = scripts[0].ignore
      let script = scripts.map(\.text).joined(separator: "\n")
      result.commands = [.shell(ignore ? Self.ignoringErrors(script) : script)]
    }
    for script in scripts where firstCompound == nil && isCompound(script.text) { firstCompound = script.line }
    return result
  }

  // MARK: Rendering

  /// Appends `pieces` to `out` as shell text: params and environment variables as `${NAME}`
  /// (quoted where they fall inside single quotes), `$(shell …)` as `$(…)`.
  mutating func render(_ pieces: [MakePiece], into out: inout String) {
    for piece in pieces {
      switch piece {
      case .text(let text): out += text
      case .glob(let patterns, let line):
        expander.approximate(
          "$(wildcard \(patterns))", at: line,
          "left as the shell glob '\(patterns)', matched when the command runs (a pattern that matches nothing "
            + "stays as written, where make gives nothing)")
        out += patterns
      case .param(let name): out += Self.reference(name, after: out)
      case .variable(let variable):
        if !expander.quiet, reportedVariables.insert(variable.written).inserted {
          expander.approximate(variable.written, at: variable.line, variable.commandReason)
        }
        out += Self.reference(variable.name, after: out)
      case .shell(let command):
        let when = command.once ? "once, when it reads the Makefile" : "each time it expands the variable"
        expander.notCarried(
          command.written, at: command.line,
          "runner runs no command when it reads the task file: left in the command as the shell's $(…), "
            + "which runs it each time the command runs (make runs it \(when))")
        out += "$("
        render(command.command, into: &out)
        out += ")"
      }
    }
  }

  /// `${NAME}`, or `'"${NAME}"'` when `text` leaves it inside single quotes.
  static func reference(_ name: String, after text: String) -> String {
    quoteState(text) == .single ? "'\"${\(name)}\"'" : "${\(name)}"
  }

  enum Quote { case none, single, double }

  /// Whether the end of `text` is inside single or double quotes, as the shell reads it.
  static func quoteState(_ text: String) -> Quote {
    var scanner = QuoteScanner()
    for character in text { _ = scanner.step(character) }
    return scanner.state
  }

  /// Follows the shell's quoting one character at a time.
  struct QuoteScanner {
    var state = Quote.none
    var escaped = false

    /// Moves past `character`; true when it stands outside quotes and unescaped.
    mutating func step(_ character: Character) -> Bool {
      if escaped {
        escaped = false
        return false
      }
      let before = state
      switch (state, character) {
      case (.none, "\\"), (.double, "\\"): escaped = true
      case (.none, "'"): state = .single
      case (.single, "'"): state = .none
      case (.none, "\""): state = .double
      case (.double, "\""): state = .none
      default: break
      }
      return before == .none && state == .none && !escaped
    }
  }

  // MARK: Lines

  /// The command lines of an expanded recipe line: a variable of several lines (`define`)
  /// gives several; a backslash-newline continues the line.
  static func commandLines(_ text: String) -> [String] {
    var lines: [String] = []
    var current = ""
    for character in text {
      if character == "\n", !MakefileLines.continues(current) {
        lines.append(current)
        current = ""
      } else {
        current.append(character)
      }
    }
    lines.append(current)
    return lines
  }

  /// The line without make's prefixes, and whether `-` asked to ignore its errors.
  static func stripPrefixes(_ line: String) -> (String, Bool) {
    var text = Substring(line)
    var ignore = false
    while true {
      text = text.drop(while: MakeWords.isBlank)
      guard let first = text.first, first == "@" || first == "-" || first == "+" else { break }
      if first == "-" { ignore = true }
      text = text.dropFirst()
    }
    return (String(text), ignore)
  }

  /// `text` whose failure is ignored, as make's `-` prefix does.
  static func ignoringErrors(_ text: String) -> String {
    // A subshell: an `exit` in the line ends it, as it ends make's shell for that line.
    text.contains("#") || text.contains("\n") ? "(\(text)\n) || true" : "(\(text)) || true"
  }

  /// True when `text` has one of `characters` outside quotes (a `\;` does not count).
  static func topLevel(_ text: String, contains characters: Set<Character>) -> Bool {
    var scanner = QuoteScanner()
    for character in text where scanner.step(character) && characters.contains(character) { return true }
    return false
  }

  /// True when a command line holds several commands, so that `sh -e` stops at a failing one
  /// where make's `sh -c` goes on (bash: a pipeline's failing part, with `pipefail`).
  func isCompound(_ text: String) -> Bool {
    let flags = settings.shellFlags?.value ?? "-c"
    if !flags.contains("e") {
      if text.contains("\n") && !text.contains("\\\n") { return true }
      if Self.topLevel(text, contains: [";"]) { return true }
    }
    if shellName == "bash", !flags.contains("pipefail") {
      return Self.topLevel(text.replacing("||", with: "  "), contains: ["|"])
    }
    return false
  }

  /// True when `word` stands in `text` as a word of its own (a path, not part of a longer one).
  static func containsWord(_ word: String, in text: String) -> Bool {
    guard !word.isEmpty else { return false }
    let pathCharacter: (Character) -> Bool = { $0.isLetter || $0.isNumber || "._-/+~%@,".contains($0) }
    var searched = Substring(text)
    while let range = searched.firstRange(of: word) {
      let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
      let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
      if !(before.map(pathCharacter) ?? false), !(after.map(pathCharacter) ?? false) { return true }
      searched = text[range.upperBound...]
    }
    return false
  }

  /// Programs that talk to a terminal when a container runs them (`docker compose exec api sh`).
  static let terminalPrograms: Set<String> = [
    "sh", "bash", "zsh", "ash", "fish", "psql", "mysql", "mariadb", "redis-cli", "mongosh", "sqlite3", "irb",
    "iex", "rails",
  ]

  /// True for a command that asks for a terminal: `-it`/`-ti` (docker, kubectl), `exec`/`run`
  /// of a shell or database client, or the shell's `read`.
  static func asksForTerminal(_ text: String) -> Bool {
    let words = MakeWords.split(text)
    var inContainer = false
    for (index, word) in words.enumerated() {
      if word == "-it" || word == "-ti" || word == "--tty" || word == "--interactive" { return true }
      if word == "exec" || word == "run" { inContainer = true }
      if inContainer, terminalPrograms.contains(word) { return true }
      if [";", "&&", "||", "|"].contains(word) || word.hasSuffix(";") { inContainer = false }
      let previous = index > 0 ? words[index - 1] : ";"
      if word == "read", [";", "&&", "||", "then", "do", "|"].contains(previous) || previous.hasSuffix(";") {
        return true
      }
    }
    return false
  }

  /// True when a command of `text` is a plain `make` (not `$(MAKE)`).
  static func runsMake(_ text: String) -> Bool {
    let words = MakeWords.split(text)
    for (index, word) in words.enumerated() where word == "make" {
      let previous = index > 0 ? words[index - 1] : ";"
      if [";", "&&", "||", "|", "then", "do", "else"].contains(previous) || previous.hasSuffix(";") { return true }
    }
    return false
  }

  /// `$(MAKE) TARGET…`: task calls when every word is a target of this Makefile (and the task
  /// may call), else nil with the line reported.
  mutating func makeCalls(_ text: String, line: Int, callable: Bool, written: String) -> [ImportedCommand]? {
    let words = MakeWords.split(text)
    let targets = Array(words.dropFirst())
    let plain = !text.contains { "$;&|<>()`'\"\\\n".contains($0) }
    if callable, plain, words.first == "make", !targets.isEmpty, targets.allSatisfy({ taskNames[$0] != nil }) {
      let names = targets.compactMap { taskNames[$0] }
      expander.approximate(
        "\(written) \(targets.joined(separator: " "))", at: line,
        "became a call of \(names.map { "'\($0)'" }.joined(separator: ", ")) (`- task:`): runner runs it in "
          + "this run, once, where make starts another make")
      return names.map { .call(ImportedDependency($0)) }
    }
    if words.contains("-C") || words.contains(where: { $0.hasPrefix("--directory") }) {
      expander.approximate(
        "\(written) -C", at: line,
        "runs make in another directory: import that directory's Makefile too, add it under `includes:` and "
          + "depend on its tasks")
    } else {
      expander.approximate(
        written, at: line,
        "runs `make` again: for a target of this Makefile, depend on its task or call it (`- task:`); another "
          + "directory's Makefile can be imported too and added under `includes:`")
    }
    return nil
  }
}
