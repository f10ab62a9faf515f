import RunnerModel

extension TaskfileImporter {
  /// One `cmds` item: a command, `cmd:` with its settings, a `task:` call, a `defer:`, or a
  /// `for:` loop.
  func commands(
    _ node: YAMLNode, _ context: Context, _ state: inout TaskState, _ report: inout ImportReport
  ) -> [ImportedCommand] {
    let line = node.location.line
    if let command = node.scalar {
      return [.shell(convertCommand(command, line: line, context, &state, &report, failsLoudly: true))]
    }
    guard case .mapping(let fields) = node.kind else { return [] }
    let field = { (name: String) in fields.first { $0.name == name }?.value }
    if let deferred = field("defer") {
      var inner = TaskState()
      state.deferred += commands(deferred, context, &inner, &report)
      report.approximate(
        "defer", at: line,
        "runs after the task's other commands only when they succeed (runner has no deferred commands)")
      return []
    }
    if let name = field("task")?.scalar {
      let condition = field("if")
      guard let calls = calls(name, fields.filter { condition == nil || $0.name != "if" }, at: line, context, &report)
      else {
        return [.shell(failing("task: \(name)", line: line))]
      }
      guard let written = condition?.scalar else { return calls.map { .call($0) } }
      if field("for") != nil {
        report.notCarried(
          "if: \(written)", at: line, "a condition on a call in a for: loop has no equivalent: the call fails instead")
        return [.shell(failing("task: \(name)", line: line))]
      }
      // `if:` on a call: an internal task with the condition, which makes the calls; skipped,
      // it lets the caller go on, as go-task skips the call.
      var wrapper = ImportedTask(name: "\(context.taskName ?? "task").if-\(state.conditionalCalls.count + 1)")
      wrapper.isInternal = true
      wrapper.condition = convertCommand(written, line: line, context, &state, &report, failsLoudly: true)
      wrapper.commands = calls.map { .call($0) }
      state.conditionalCalls.append(wrapper)
      return [.call(ImportedDependency(wrapper.name))]
    }
    guard let command = field("cmd")?.scalar else {
      report.notCarried("cmds: …", at: line, "only commands, cmd:, task: and defer: are imported")
      return []
    }
    var prelude = ""
    var timeout: String?
    for entry in fields {
      switch entry.name {
      case "cmd", "for", "ignore_error", "platforms", "silent", "if": continue
      case "set", "shopt": prelude += shellPrelude(shellFlags(entry.value, key: entry.name, &report))
      case "timeout":
        guard let seconds = entry.value.scalar.flatMap(Self.seconds(ofGoDuration:)) else {
          report.notCarried("cmd: timeout", at: entry.key.location.line, "not a Go duration (200ms, 1m30s)")
          return [.shell(failing("cmd: timeout", line: entry.key.location.line))]
        }
        timeout = seconds
        report.approximate(
          "cmd: timeout", at: entry.key.location.line,
          "the command runs in a bash of its own under coreutils' timeout, which stops it with SIGTERM (exit 124)")
      default:
        report.notCarried(
          "cmd: \(entry.name)", at: entry.key.location.line, "go-task's '\(entry.name)' of a command has no equivalent")
      }
    }
    var items: [LoopItem?] = [nil]
    var context = context
    var shellLoop: (words: String, existing: Bool)?
    if let node = field("for") {
      switch loop(node, context, &report) {
      case .items(let found): items = found
      case .shell(let words, let name, let existing, _):
        context.shellItem = name
        shellLoop = (words, existing)
      case nil: return [.shell(failing("for: \(node.scalar ?? "…")", line: line))]
      }
    }
    return items.map { item in
      var text = command
      var context = context
      if let item {
        text = item.apply(text)
        context.loopItem = item
      }
      var script = prelude + convertCommand(text, line: line, context, &state, &report, failsLoudly: true)
      if let timeout {
        script =
          "timeout \(timeout) bash --noprofile --norc -e -c \(Self.quoted(script)) \"$0\" \"$@\""
      }
      if field("ignore_error")?.scalar == "true" { script = Self.ignoringFailure(script, line: line, &report) }
      // go-task's `if:` of a command: a shell condition (templates filled in) that skips it.
      if let written = field("if")?.scalar {
        let text = item.map { $0.apply(written) } ?? written
        let condition = convertCommand(text, line: line, context, &state, &report, failsLoudly: true)
        // In a subshell of its own, as go-task runs it: its `exit` or `cd` stays there.
        script = "if (\n\(condition)\n)\nthen\n\(script)\nfi"
      }
      if let platforms = field("platforms"), let condition = shellPlatforms(platforms) {
        script = "if \(condition); then \(script); fi"
        report.approximate("cmd: platforms", at: line, "checked with uname when the command runs")
      }
      if let (words, existing) = shellLoop {
        let skip = existing ? "[ -e \"$__runner_item\" ] || continue\n" : ""
        // A failing item stops the loop and fails the task, as go-task stops at it.
        script = "for __runner_item in \(words); do\n\(skip)\(script) || exit\ndone"
      }
      return .shell(script)
    }
  }

  /// What a `{{.NAME}}` becomes.
  enum Replacement {
    /// A shell expansion (`${NAME}`, `"$@"`, `$(command)`): inside single quotes it is written
    /// between `'"` and `"'` so the shell still expands it.
    case expansion(String)
    /// Text spliced as go-task splices it (a value with shell syntax), quoted as it stands.
    case text(String)
  }

  /// A command with `{{.NAME}}` → `${NAME}` (a param), the value itself (a var whose value
  /// holds shell syntax), `$(command)` (a command-valued var), `{{.CLI_ARGS}}` → `"$@"`;
  /// anything else inside `{{ }}` is reported and left as written.
  func convertCommand(
    _ text: String, line: Int, _ context: Context, _ state: inout TaskState, _ report: inout ImportReport,
    depth: Int = 0, failsLoudly: Bool = false, quoting: Quoting = .none
  ) -> String {
    var missing: [String] = []
    func replacement(_ name: String, _ quoting: Quoting, _ report: inout ImportReport) -> Replacement? {
      switch name {
      case "CHECKSUM", "TIMESTAMP", "TIMESTAMP.Unix":
        // go-task sets the one its method names, for a task with sources; the other is empty.
        let kind = String(name.prefix { $0 != "." })
        guard let sources = context.taskFiles["sources"], !sources.isEmpty, context.method == kind.lowercased()
        else { return .text("") }
        if kind == "TIMESTAMP", let newest = Self.newestTime(sources, unix: name.hasSuffix(".Unix")) {
          report.approximate(
            "{{.\(name)}}", at: line,
            "the newest time of the sources when the command runs (go-task takes it before the task's deps run)")
          return .expansion(newest)
        }
        report.notCarried("{{.\(name)}}", at: line, "go-task's own variable: runner has no equivalent")
        missing.append("{{.\(name)}}")
        return nil
      case _ where Self.specialVariables.contains(name):
        // go-task fills these in itself; runner has no such value, and an empty one runs something else.
        report.notCarried("{{.\(name)}}", at: line, "go-task's own variable: runner has no equivalent")
        missing.append("{{.\(name)}}")
        return nil
      case "CLI_ARGS":
        state.usesArguments = true
        state.argumentsLine = line
        return .expansion(quoting == .none ? "\"$@\"" : "$*")
      case "USER_WORKING_DIR": return .expansion("${RUNNER_INVOCATION_DIR}")
      case "TASK": return .expansion("${RUNNER_TASK}")
      case "ROOT_DIR":
        // The root file's directory, through the environment (a command holds no ${{ }}).
        state.hostEnvironment["ROOT_DIR"] = "${{ runner.root }}"
        return .expansion("${ROOT_DIR}")
      case let host where host.hasPrefix("runner."):
        let variable = "RUNNER_HOST_" + host.dropFirst("runner.".count).uppercased()
        state.hostEnvironment[variable] = Self.hostValue(host, line: line, &report)
        return .expansion("${\(variable)}")
      case "TASK_DIR": return .expansion("${PWD}")
      case "TASKFILE_DIR", "TASKFILE":
        report.approximate(
          "{{.\(name)}}", at: line,
          "became $PWD: the task's directory, which is the task file's unless the task sets dir or the file is "
            + "included (then it runs where the including file's tasks run, unless the include sets dir)")
        return .expansion(name == "TASKFILE" ? "${PWD}/\(Self.fileName(of: path))" : "${PWD}")
      case "ROOT_TASKFILE":
        state.hostEnvironment["ROOT_DIR"] = "${{ runner.root }}"
        report.approximate(
          "{{.ROOT_TASKFILE}}", at: line,
          "the root file's name is taken to be this file's (\(Self.fileName(of: path))): right unless it is included")
        return .expansion("${ROOT_DIR}/\(Self.fileName(of: path))")
      case "ALIAS":
        if context.taskHasAliases {
          report.approximate("{{.ALIAS}}", at: line, "became the task's name: runner does not tell a task its alias")
        }
        return .expansion("${RUNNER_TASK}")
      default:
        guard depth < 16 else { return nil }
        if name == context.shellItem { return .expansion("${__runner_item}") }
        if let text = context.loopItem?.text(for: name) ?? structuredText(name, context) {
          // A value of a list or map may hold templates of its own (`["{{.FOO}}"]`).
          guard text.contains("{{") else { return .text(text) }
          return .text(convertCommand(text, line: line, context, &state, &report, depth: depth + 1, quoting: quoting))
        }
        if let value = context.inlineVars[name] {
          // Spliced where it stands, so its own templates are read in the quotes around it.
          return .text(convertCommand(value, line: line, context, &state, &report, depth: depth + 1, quoting: quoting))
        }
        if let command = context.commandVars[name] {
          return .expansion(
            "$(" + convertCommand(command, line: line, context, &state, &report, depth: depth + 1) + ")")
        }
        if context.taskName != nil, !context.taskParams.contains(name), context.fileParams[name] == nil,
          context.environmentNames[name] == nil, !context.fileEnvironment.contains(name),
          context.knownValues[name] == nil, VariableText.isValidName(name[...]), !state.environmentReads.contains(name)
        {
          state.environmentReads.append(name)
        }
        return .expansion("${\(name)}")
      }
    }

    var assignments: [String] = []
    let converted = convertTemplates(
      text, line: line, shell: true, &report, startingIn: quoting, unconverted: { missing.append($0) }
    ) {
      name, quoting, report in
      if depth == 0, failsLoudly, let command = context.commandVars[name] {
        // Assigned first, so a command that fails fails the task (bash -e), as go-task fails it.
        let variable = "__runner_\(name)"
        let value = convertCommand(command, line: line, context, &state, &report, depth: depth + 1)
        if !assignments.contains(where: { $0.hasPrefix(variable + "=") }) {
          assignments.append("\(variable)=$(\(value))")
        }
        return .expansion("${\(variable)}")
      }
      return replacement(name, quoting, &report)
    }
    guard depth == 0, failsLoudly else { return converted }
    if Self.printsShellOptions(text) {
      report.approximate(
        "shopt / set -o", at: line,
        "go-task's shell is mvdan/sh, runner's bash: the options they list, and how, differ")
    }
    if let first = missing.first {
      // Not carried over: the command fails and says so, rather than run something else.
      return failing(first, line: line)
    }
    return assignments.isEmpty ? converted : assignments.joined(separator: "; ") + "; " + converted
  }

  /// Replaces each `{{ .NAME }}` by `replacement(NAME)`; a template that is not a plain
  /// variable (functions, pipes, conditionals), or one `replacement` refuses, stays as
  /// written and is reported. With `shell`, an expansion inside single quotes is unquoted.
  func convertTemplates(
    _ text: String, line: Int, shell: Bool, _ report: inout ImportReport, startingIn quoting: Quoting = .none,
    unconverted: (String) -> Void = { _ in },
    _ replacement: (String, Quoting, inout ImportReport) -> Replacement?
  ) -> String {
    var result = ""
    var quoting = quoting
    var index = text.startIndex
    while index < text.endIndex {
      if text[index...].hasPrefix("{{"), let close = text[index...].firstRange(of: "}}") {
        let written = String(text[index..<close.upperBound])
        let inner = text[text.index(index, offsetBy: 2)..<close.lowerBound].trimmingSpaces()
        // go-task's host functions ({{OS}}, {{ARCH}}, {{exeExt}}) reach the callers as `runner.NAME`.
        let host = Self.hostFunctions[String(inner)].map { "runner." + $0 }
        // `{{.X | default "y"}}`, go-task's most common idiom: `${X:-y}` (empty counts as unset in both).
        if shell, let (name, fallback) = Self.defaulted(inner),
          case .expansion(let expansion) = replacement(name, quoting, &report), expansion == "${\(name)}"
        {
          let defaulted = "${\(name):-\(fallback)}"
          result += quoting == .single ? "'\"" + defaulted + "\"'" : defaulted
          index = close.upperBound
          continue
        }
        // `{{ eq .X "y" }}`, `{{ and (eq .X "y") (ne .Z "w") }}` …: `true` or `false`, as go-task prints them.
        if shell,
          let test = Self.condition(
            inner,
            operand: { name in
              switch replacement(name, .double, &report) {
              case .expansion(let expansion): return "\"" + expansion + "\""
              // Spliced text is shell text (`${ENV}-x`): only plain words are compared as written.
              case .text(let text): return Self.isPlainWords(text) ? Self.quoted(text) : nil
              case nil: return nil
              }
            })
        {
          report.approximate(
            written, at: line,
            "compared as text: go-task compares typed values (a var written true or 1 without quotes is no "
              + "string, and go-task refuses the comparison) and an undefined var is not empty there")
          let converted = "$(\(test) && echo true || echo false)"
          result += quoting == .single ? "'\"" + converted + "\"'" : converted
          index = close.upperBound
          continue
        }
        // `{{.X | upper}}`, `{{.X | lower}}`: through tr, in a command substitution.
        let parts = inner.split(separator: "|").map { $0.trimmingSpaces() }
        if shell, parts.count == 2, parts[0].hasPrefix("."),
          let to = ["upper": "upper", "lower": "lower"][String(parts[1])],
          case .expansion(let expansion) = replacement(String(parts[0].dropFirst()), quoting, &report),
          expansion == "${\(parts[0].dropFirst())}"
        {
          let from = to == "upper" ? "lower" : "upper"
          let converted = "$(printf '%s' \"\(expansion)\" | tr '[:\(from):]' '[:\(to):]')"
          result += quoting == .single ? "'\"" + converted + "\"'" : converted
          index = close.upperBound
          continue
        }
        // `{{splitArgs .CLI_ARGS | len}}`: how many words came after `--`.
        if shell, parts.count == 2, parts[1] == "len",
          parts[0].split(separator: " ").map(String.init) == ["splitArgs", ".CLI_ARGS"],
          replacement("CLI_ARGS", quoting, &report) != nil
        {
          result += quoting == .single ? "'\"$#\"'" : "$#"
          index = close.upperBound
          continue
        }
        // `{{absPath "p"}}`, `{{absPath .X}}`: Go's filepath.Abs, lexical as `realpath -ms`.
        if shell, parts.count == 1, inner.hasPrefix("absPath "),
          let argument = absPathArgument(
            inner.dropFirst("absPath ".count).trimmingSpaces(), quoting, &report, replacement)
        {
          let converted = "$(realpath -ms -- \(argument))"
          result += quoting == .single ? "'\"" + converted + "\"'" : converted
          index = close.upperBound
          continue
        }
        if let name = host
          ?? (inner.hasPrefix(".") && Self.isName(inner.dropFirst()) ? String(inner.dropFirst()) : nil)
            ?? Self.structuredPath(inner),
          let replaced = replacement(name, shell ? quoting : .none, &report)
        {
          switch replaced {
          case .text(let spliced): result += spliced
          case .expansion(let expansion) where quoting == .single && shell: result += "'\"" + expansion + "\"'"
          case .expansion(let expansion): result += expansion
          }
        } else {
          result += written
          if host == nil, !inner.hasPrefix(".") || !Self.isName(inner.dropFirst()) {
            report.notCarried(
              written, at: line, "Go template functions, pipes and conditionals have no equivalent: write it in shell")
            unconverted(written)
          }
        }
        index = close.upperBound
        continue
      }
      let character = text[index]
      result.append(character)
      switch (character, quoting) {
      case ("'", .none): quoting = .single
      case ("'", .single): quoting = .none
      case ("\"", .none): quoting = .double
      case ("\"", .double): quoting = .none
      case ("\\", .none), ("\\", .double):
        let next = text.index(after: index)
        if next < text.endIndex {
          result.append(text[next])
          index = next
        }
      default: break
      }
      index = text.index(after: index)
    }
    return result
  }
}
