import RunnerModel

/// A shebang line or `[script]` attribute: the interpreter's argv, and where it is written.
struct JustScript: Sendable {
  var interpreter: [String]
  var written: String
  var line: Int
}

/// Recipe bodies: lines, shebang scripts and `[script]` recipes.
extension JustfileConversion {
  /// The commands of `recipe`'s body (and the task's shell, for a script).
  mutating func body(
    of recipe: JustRecipe, _ options: JustRecipeOptions, _ scope: JustScope, into task: inout ImportedTask
  ) {
    // An explicit `[script]` runs the body with its interpreter, a shebang line and all.
    let scriptAttribute = recipe.attributes.contains { $0.name == "script" }
    if let first = recipe.body.first, first.text.hasPrefix("#!"), !scriptAttribute {
      let words = Self.shebangWords(first.text)
      guard !words.isEmpty else {
        report.notCarried(first.text, at: first.line, "the shebang names no interpreter: the recipe has no commands")
        return
      }
      // The kernel runs a shebang's interpreter by path: `#!bash` is no program on Linux.
      if let program = first.text.dropFirst(2).split(whereSeparator: { $0 == " " || $0 == "\t" }).first,
        !program.hasPrefix("/")
      {
        report.approximate(
          first.text, at: first.line, "'\(program)' is not a path: the recipe cannot run on Linux, and fails")
        task.commands.append(.shell(failing(first.text, line: first.line)))
        return
      }
      let shebang = JustScript(interpreter: words, written: first.text, line: first.line)
      uncarried = nil
      script(Array(recipe.body.dropFirst()), shebang, recipe, options, scope, into: &task)
      failIfUncarried(recipe, &task)
    } else if let interpreter = options.script {
      let attribute = recipe.attributes.first { $0.name == "script" }
      let written = attribute?.source ?? "set default-script"
      let script = JustScript(interpreter: interpreter, written: written, line: attribute?.line ?? recipe.line)
      uncarried = nil
      self.script(recipe.body, script, recipe, options, scope, into: &task)
      failIfUncarried(recipe, &task)
    } else {
      lines(of: recipe, options, scope, into: &task)
    }
  }

  /// A script with an interpolation not carried over: one command that fails and says so
  /// (run by sh, whatever the script's interpreter was).
  mutating func failIfUncarried(_ recipe: JustRecipe, _ task: inout ImportedTask) {
    guard let written = uncarried else { return }
    task.commands = [.shell(failing(written, line: recipe.line))]
    task.shellArguments = nil
  }

  /// A command that fails and says which construct it stands for.
  func failing(_ construct: String, line: Int) -> String {
    let message = "runner import: \(report.place(line)): not carried over: \(construct): write it in shell"
    return "echo " + Self.shellWord(message) + " >&2; exit 1"
  }

  /// `#!/usr/bin/env -S bash -x` → `bash -x`; `#!/bin/sh` → `/bin/sh`.
  static func shebangWords(_ line: String) -> [String] {
    withoutEnv(line.dropFirst(2).split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init))
  }

  /// An argv without a leading `env` (or `/usr/bin/env -S`): the program it runs, and its arguments.
  static func withoutEnv(_ words: [String]) -> [String] {
    guard let first = words.first, first == "env" || first.hasSuffix("/env") else { return words }
    return Array(words.dropFirst().drop { $0.hasPrefix("-") })
  }

  // MARK: Lines

  /// A linewise recipe: each line (with its continuation lines) one command.
  mutating func lines(
    of recipe: JustRecipe, _ options: JustRecipeOptions, _ scope: JustScope, into task: inout ImportedTask
  ) {
    var index = 0
    while index < recipe.body.count {
      let line = recipe.body[index].line
      var text = recipe.body[index].text
      index += 1
      guard !text.isEmpty else { continue }
      if settings.ignoreComments, text.hasPrefix("#") { continue }
      // just joins a line ending in `\` with the next, whose indentation it drops.
      while text.hasSuffix("\\"), index < recipe.body.count {
        text.removeLast()
        text += recipe.body[index].text.drop(while: JustText.isBlank)
        index += 1
      }
      let (sigils, command) = sigils(of: text)
      // A comment line does nothing in the shell (and nothing with `set ignore-comments`).
      guard !command.isEmpty, !command.hasPrefix("#") else { continue }
      if sigils.contains("?") {
        report.notCarried(
          "?" + command, at: line,
          "runner has no guard lines: exit status 1 fails the task rather than ending it quietly")
      }
      uncarried = nil
      readsVariadic = false
      var shell = rewrite(command, at: [line], scope)
      if let written = uncarried {
        // Not carried over: the line fails and says so, rather than run something else.
        task.commands.append(.shell(failing(written, line: line)))
        continue
      }
      if let replaced = justItself(shell.text, at: line) { shell = JustShellText(text: replaced) }
      var converted = sigils.contains("-") ? Self.ignoringFailure(shell) : shell.text
      if options.noCd { converted = Self.inInvocationDirectory(converted, isList: shell.isList) }
      if shell.readsPositionalArguments, let arguments = positionalWords(recipe, options) {
        if readsVariadic {
          // `set --` would put the params before the variadic words `{{rest}}` reads.
          report.approximate(
            command, at: line,
            "$1, $@ … are the words after `--` here (runner \(recipe.name) -- a b), not the recipe's params: "
              + "the line also reads the variadic parameter")
        } else {
          converted = "set -- \(arguments); " + converted
        }
      }
      let shellArguments = task.shellArguments ?? file.shellArguments ?? ["sh", "-cu"]
      if shell.readsScriptName, options.positionalArguments,
        task.name != recipe.name || !ShellSetting.takesName(shellArguments)
      {
        report.approximate(
          command, at: line,
          "$0 is the task's name (or the shell's, with this shell) in runner (just: the recipe's name)")
      }
      task.commands.append(.shell(converted))
    }
  }

  /// The sigils (`@`, `-`, and `?` with `set guards`) at the start of a line, each at most once, and the rest.
  func sigils(of text: String) -> (Set<Character>, String) {
    var sigils: Set<Character> = []
    var rest = Substring(text)
    while let character = rest.first, character == "@" || character == "-" || (character == "?" && settings.guards),
      sigils.insert(character).inserted
    {
      rest = rest.dropFirst()
    }
    return (sigils, String(rest))
  }

  /// `(cmd) || true`, with a trailing comment kept after it: a subshell, so `exit 3` ends the
  /// line's own shell as in just, not the `|| true`.
  static func ignoringFailure(_ shell: JustShellText) -> String {
    var characters = Array(shell.text)
    var comment = ""
    if let start = shell.commentStart {
      comment = " " + String(characters[start...])
      characters = Array(characters[..<start])
    }
    let command = JustText.trimmed(String(characters))
    guard !command.isEmpty else { return shell.text }
    return "(\(command)) || true\(comment)"
  }

  /// `[no-cd]`: the command runs where runner was started.
  static func inInvocationDirectory(_ command: String, isList: Bool) -> String {
    let cd = "cd \"$RUNNER_INVOCATION_DIR\""
    return isList ? "\(cd)\n\(command)" : "\(cd) && \(command)"
  }

  /// A line that runs just itself: `just --list` becomes `runner --list` (returned); others are
  /// reported and kept (nil).
  mutating func justItself(_ command: String, at line: Int) -> String? {
    let words = command.split(separator: " ")
    guard let first = words.first, first == "just" else { return nil }
    let options = Set(words.dropFirst())
    if !options.isEmpty, options.isSubset(of: ["--list", "-l", "--unsorted", "-u"]),
      options.contains(where: { $0 == "--list" || $0 == "-l" })
    {
      report.approximate(
        command, at: line, "runner --list lists the tasks (of tasks.yml here: add -f FILE for a file of another name)")
      return "runner --list"
    }
    report.approximate(
      command, at: line, "it still runs just and the justfile: call the task with '- task: NAME' in 'run' instead")
    return nil
  }

  /// `set positional-arguments`: the recipe's parameters, then its variadic words, as the
  /// shell's `$1` …: `"${a}" "${b}" "$@"` (nil without the setting).
  func positionalWords(_ recipe: JustRecipe, _ options: JustRecipeOptions) -> String? {
    let names = paramNames(of: recipe)
    let named = recipe.parameters.filter { $0.variadic == nil }.map { "\"${\(names[$0.name] ?? $0.name)}\"" }
    guard options.positionalArguments, !named.isEmpty else { return nil }
    return (named + ["\"$@\""]).joined(separator: " ")
  }

  // MARK: Interpolation

  /// Shell text with its interpolations replaced; `lines` are the line numbers of its lines.
  mutating func rewrite(_ text: String, at lines: [Int], _ scope: JustScope) -> JustShellText {
    JustShellRewriter.rewrite(text) { interpolation(of: $0, at: lines, scope) }
  }

  /// A script for an escaped here-document with its interpolations replaced.
  mutating func rewriteScript(_ text: String, at lines: [Int], _ scope: JustScope) -> String {
    JustShellRewriter.rewriteScript(text) { interpolation(of: $0, at: lines, scope) }
  }

  /// What one `{{expression}}` becomes where it stands, or nil (reported) to leave it as written.
  mutating func interpolation(of interpolation: JustInterpolation, at lines: [Int], _ scope: JustScope)
    -> JustReplacement?
  {
    let line = lines[min(interpolation.lineOffset, lines.count - 1)]
    var notes: [String] = []
    do throws(JustValueProblem) {
      let pieces = try pieces(interpolation.expression, scope, &notes)
      if pieces.contains(where: { $0 == .arguments || $0 == .quotedArguments }) { readsVariadic = true }
      let text = try Self.shellText(pieces, interpolation.quoting)
      if interpolation.quoting == .double, pieces.contains(where: { if case .quotedWord = $0 { true } else { false } })
      {
        notes.append("quote() inside double quotes goes through $(…): a value ending in line breaks loses them")
      }
      if interpolation.quoting != .script, text.contains("${{") {
        throw .notCarried("its text holds '${{', which runner does not allow in 'run'")
      }
      for note in notes { report.approximate(interpolation.written, at: line, note) }
      return JustReplacement(text: text, isLiteral: Self.plainText(pieces) != nil)
    } catch {
      if error.level == .approximate {
        report.approximate(interpolation.written, at: line, error.reason)
      } else {
        report.notCarried(interpolation.written, at: line, error.reason + " (the command fails and says so)")
        uncarried = uncarried ?? interpolation.written
      }
      return nil
    }
  }

  // MARK: Scripts

  /// A shebang or `[script]` recipe: its body is one script for the interpreter.
  mutating func script(
    _ body: [JustBodyLine], _ script: JustScript, _ recipe: JustRecipe, _ options: JustRecipeOptions,
    _ scope: JustScope, into task: inout ImportedTask
  ) {
    let interpreter = script.interpreter
    let program = String(interpreter[0].split(separator: "/").last ?? "")
    if ["sh", "bash", "zsh"].contains(program) {
      var lines = body
      while lines.first?.text.isEmpty == true { lines.removeFirst() }
      let text = lines.map(\.text).joined(separator: "\n")
      let numbers = lines.isEmpty ? [recipe.line] : lines.map(\.line)
      shellScript(text, script, program: program, numbers, recipe, options, scope, &task)
      return
    }
    // As just writes the script file: the shebang line first.
    let (text, numbers) = Self.scriptFileText(body, script)
    if Self.readsScriptFromStandardInput(program) {
      var command = interpreter.map(Self.shellWord).joined(separator: " ") + " -"
      if options.positionalArguments { command += " " + (positionalWords(recipe, options) ?? "\"$@\"") }
      command += " " + hereDocument(text, numbers, scope)
      task.commands.append(.shell(options.noCd ? "cd \"$RUNNER_INVOCATION_DIR\" && \(command)" : command))
    } else {
      var command = options.noCd ? "cd \"$RUNNER_INVOCATION_DIR\"\n" : ""
      command += "script=\"$(mktemp)\"\ntrap 'rm -f \"$script\"' EXIT\n"
      // just pads the file with blank lines so that its lines are the justfile's: the ones
      // before the body are printed, the ones inside it written.
      let padded = Self.paddedScript(body, script)
      if padded.leading > 0 {
        command += "{ " + (padded.shebang.map { "printf '%s\\n' \(TasksFileWriter.shellQuoted($0)); " } ?? "")
        command += "printf '%\(padded.leading)s' '' | tr ' ' '\\n'; } > \"$script\"\n"
        command += "cat >> \"$script\" " + hereDocument(padded.text, padded.numbers, scope) + "\n"
      } else {
        command += "cat > \"$script\" " + hereDocument(padded.text, padded.numbers, scope) + "\n"
      }
      command += interpreter.map(Self.shellWord).joined(separator: " ") + " \"$script\""
      if options.positionalArguments { command += " " + (positionalWords(recipe, options) ?? "\"$@\"") }
      task.commands.append(.shell(command))
      report.approximate(
        script.written, at: script.line,
        "runner's shell is sh, bash, zsh or an argv list, which runner import cannot write yet: the script is "
          + "written to a temporary file and run with \(interpreter.joined(separator: " ")), as just does")
    }
  }

  /// The script as just writes it to a file, its shebang line first (perl and ruby read
  /// options there); without the blank lines just adds to keep the justfile's line numbers,
  /// which would fill the tasks file.
  static func scriptFileText(_ body: [JustBodyLine], _ script: JustScript) -> (String, [Int]) {
    var lines = body
    while lines.first?.text.isEmpty == true { lines.removeFirst() }
    if script.written.hasPrefix("#!") { lines.insert(JustBodyLine(text: script.written, line: script.line), at: 0) }
    return (lines.map(\.text).joined(separator: "\n"), lines.isEmpty ? [script.line] : lines.map(\.line))
  }

  /// The script file just writes: each body line at its 0-based line in the justfile (the
  /// shebang first), blank lines between. `leading` blank lines (after the shebang) come before
  /// `text`, which holds the rest, gaps inside it written out; `numbers` are `text`'s lines'.
  static func paddedScript(_ body: [JustBodyLine], _ script: JustScript)
    -> (shebang: String?, leading: Int, text: String, numbers: [Int])
  {
    var lines = body
    while lines.last?.text.isEmpty == true { lines.removeLast() }
    let shebang = script.written.hasPrefix("#!") ? script.written : nil
    var next = shebang == nil ? 0 : 1
    var leading = 0
    var text: [String] = []
    var numbers: [Int] = []
    if shebang != nil, lines.first?.text == script.written { lines.removeFirst() }
    for line in lines {
      let target = (line.line - 1) % 1_000_000
      while next < target {
        if text.isEmpty && numbers.isEmpty {
          leading += 1
        } else {
          text.append("")
          numbers.append(line.line)
        }
        next += 1
      }
      text.append(line.text)
      numbers.append(line.line)
      next += 1
    }
    if shebang != nil, leading == 0 { text.insert(script.written, at: 0); numbers.insert(script.line, at: 0) }
    return (
      leading == 0 ? nil : shebang, leading, text.joined(separator: "\n"), numbers.isEmpty ? [script.line] : numbers
    )
  }

  /// python, node, perl and ruby read the script from standard input given `-`.
  static func readsScriptFromStandardInput(_ program: String) -> Bool {
    program == "python" || program.hasPrefix("python2") || program.hasPrefix("python3") || program == "node"
      || program == "nodejs" || program == "perl" || program == "ruby"
  }

  /// `<<'EOF'` + the script + `EOF`; an unquoted delimiter, with the text escaped, when the
  /// script interpolates (the shell then expands the variables, where just spliced the text).
  mutating func hereDocument(_ text: String, _ lines: [Int], _ scope: JustScope) -> String {
    let body = text.contains("{{") ? rewriteScript(text, at: lines, scope) : text
    var delimiter = "EOF"
    let textLines = text.split(separator: "\n", omittingEmptySubsequences: false)
    while textLines.contains(where: { $0 == delimiter }) { delimiter += "_" }
    let opening = body == text ? "<<'\(delimiter)'" : "<<\(delimiter)"
    return "\(opening)\n\(body)\n\(delimiter)"
  }

  /// A shell script for runner's sh, bash or zsh, with the shebang's options as a `set` line.
  mutating func shellScript(
    _ text: String, _ script: JustScript, program: String, _ lines: [Int], _ recipe: JustRecipe,
    _ options: JustRecipeOptions, _ scope: JustScope, _ task: inout ImportedTask
  ) {
    let flags = Array(script.interpreter.dropFirst())
    // The interpreter with the shebang's options, the script as its -c word: as just runs it.
    task.shellArguments = [program] + flags + ["-c"]
    readsVariadic = false
    let shell = rewrite(text, at: lines, scope)
    var prelude: [String] = []
    if options.noCd { prelude.append("cd \"$RUNNER_INVOCATION_DIR\"") }
    if shell.readsPositionalArguments, let arguments = positionalWords(recipe, options) {
      if readsVariadic {
        report.approximate(
          script.written, at: script.line,
          "$1, $@ … are the words after `--` here (runner \(recipe.name) -- a b), not the recipe's params: "
            + "the script also reads the variadic parameter")
      } else {
        prelude.append("set -- \(arguments)")
      }
    }
    task.commands.append(.shell((prelude + [shell.text]).joined(separator: "\n")))
  }

  /// A word for the shell: as it is when plain, else single-quoted.
  static func shellWord(_ word: String) -> String {
    let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:+,@%".contains($0) }
    return plain
      ? word : TasksFileWriter.shellQuoted(word)
  }
}
