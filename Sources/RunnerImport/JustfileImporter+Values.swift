/// A piece of an expression's value, as runner can produce it.
enum JustPiece: Sendable, Equatable {
  /// Text known now.
  case text(String)
  /// A variable of the task's environment (a top-level variable, `RUNNER_INVOCATION_DIR`, …).
  case variable(String)
  /// One of the recipe's params (in the environment under its name, and `${{ params.NAME }}`).
  case parameter(String)
  /// The variadic parameter's words: runner's arguments, the words after `--`.
  case arguments
  /// A shell parameter expansion (`${NAME-default}`): only the shell can read it.
  case shell(String)
  /// `quote(x)` of a value known only when the command runs: one word, outside quotes.
  indirect case quotedWord([JustPiece])
  /// `quote(args)` with `set lists`: each word quoted, so `"$@"` outside quotes only.
  case quotedArguments
}

/// Why an expression cannot be carried where it stands.
struct JustValueProblem: Error, Sendable {
  var level: ImportReport.Level
  var reason: String

  static func notCarried(_ reason: String) -> JustValueProblem { JustValueProblem(level: .notCarried, reason: reason) }
}

/// What an expression may read: the recipe's parameters, besides the top-level variables.
struct JustScope: Sendable {
  /// The recipe's parameters, by just name → runner param name.
  var parameters: [String: String] = [:]
  /// The variadic parameter's name.
  var variadic: String?
  /// Its default's words, when it has one.
  var variadicDefault: [String]?
  var recipeName: String?
  /// The task starts its commands in the task file's directory (no `dir`, no `[no-cd]`), so
  /// `$PWD` there is just's `justfile_directory()`. True for a top-level variable, whose uses
  /// are checked where they stand.
  var startsInFileDirectory = true
  /// Top-level variables with plain text values become that text (for `with:` and defaults,
  /// which cannot read variables).
  var foldsVariables = false
  /// How many user-defined functions deep the evaluation is (just refuses recursion).
  var functionDepth = 0

  /// The scope of a top-level variable's value read from here: no parameters.
  var outside: JustScope {
    var scope = self
    scope.parameters = [:]
    scope.variadic = nil
    scope.variadicDefault = nil
    return scope
  }
}

extension JustfileConversion {
  /// The pieces of `expression`'s value; approximations are added to `notes`.
  func pieces(_ expression: JustExpression, _ scope: JustScope, _ notes: inout [String]) throws(JustValueProblem)
    -> [JustPiece]
  {
    switch expression {
    case .literal(let text):
      return [.text(text)]
    case .variable(let name):
      return try variable(name, scope, &notes)
    case .other(let text):
      throw .notCarried("just's expression '\(text)' has no equivalent in runner: compute the value in the commands")
    default:
      return pieces(of: try evaluate(expression, scope, &notes))
    }
  }

  /// A name: a parameter of the recipe, else a top-level variable.
  func variable(_ name: String, _ scope: JustScope, _ notes: inout [String]) throws(JustValueProblem) -> [JustPiece] {
    if name == scope.variadic { return [.arguments] }
    if let parameter = scope.parameters[name] { return [.parameter(parameter)] }
    switch bindings[name] {
    case .environment(let variable):
      // Text with shell syntax is spliced as just splices it: the shell reads `${NAME}` as words.
      if let value = constants[name], scope.foldsVariables || !Self.isPlainWords(value) { return [.text(value)] }
      if scope.foldsVariables {
        throw .notCarried("'\(name)' is only known in the environment, and this value cannot read variables")
      }
      return [.variable(variable)]
    case .inline(let expression):
      return try pieces(expression, scope.outside, &notes)
    case .param(let variable):
      return [.parameter(variable)]
    case .missing(let variable):
      if scope.foldsVariables { throw .notCarried("'\(name)' is not carried over (see its definition)") }
      return [.variable(variable)]
    case nil:
      if let constant = JustFunctions.constants[name] { return [.text(constant)] }
      throw .notCarried("'\(name)' is no parameter or variable of this justfile")
    }
  }

  /// The functions runner can express; the others are reported with what to write instead.
  func call(_ name: String, _ arguments: [JustExpression], _ scope: JustScope, _ notes: inout [String])
    throws(JustValueProblem) -> [JustPiece]
  {
    let texts = arguments.map { argument -> String? in
      if case .literal(let text) = argument { return text }
      return nil
    }
    switch (name, arguments.count) {
    case ("invocation_directory", 0), ("invocation_directory_native", 0):
      return [.variable("RUNNER_INVOCATION_DIR")]
    case ("home_directory", 0):
      return [.variable("HOME")]
    case ("justfile_directory", 0), ("justfile_dir", 0), ("source_directory", 0), ("source_dir", 0):
      guard scope.startsInFileDirectory else { break }
      notes.append("${PWD}: the task file's directory, where each command starts (until it changes directory)")
      return [.shell("${PWD}")]
    case ("recipe_name", 0) where scope.recipeName != nil:
      return [.text(scope.recipeName ?? "")]
    case ("env_var", 1), ("env", 1):
      guard let key = texts[0], JustText.isVariableName(key) else { break }
      notes.append("reads $\(key), which is empty when it is not set (just stops with an error)")
      return [.variable(key)]
    case ("env_var_or_default", 2), ("env", 2):
      guard let key = texts[0], JustText.isVariableName(key), let fallback = texts[1],
        !fallback.contains(where: { "$`\\\"'}".contains($0) })
      else { break }
      return [.shell("${\(key)-\(fallback)}")]
    case ("quote", 1):
      let inner = try pieces(arguments[0], scope, &notes)
      if let text = Self.plainText(inner) {
        return [
          .text(TasksFileWriter.shellQuoted(text))
        ]
      }
      return [.quotedWord(inner)]
    case ("join", 2...):
      var result: [JustPiece] = []
      for (index, argument) in arguments.enumerated() {
        if index > 0 { result.append(.text("/")) }
        result += try pieces(argument, scope, &notes)
      }
      return result
    default:
      break
    }
    throw .notCarried("just's function \(name)() has no equivalent in runner: \(Self.instead(of: name))")
  }

  /// What to write instead of a just function runner does not have.
  static func instead(of function: String) -> String {
    switch function {
    case "uppercase": return "write $(printf %s \"$VALUE\" | tr '[:lower:]' '[:upper:]') in the command"
    case "lowercase": return "write $(printf %s \"$VALUE\" | tr '[:upper:]' '[:lower:]') in the command"
    case "arch": return "write $(uname -m) in the command"
    case "os", "os_family": return "write $(uname -s) in the command, or use if: ${{ runner.os == 'linux' }}"
    case "num_cpus": return "write $(nproc) in the command"
    case "justfile_directory", "justfile_dir", "source_directory", "source_dir":
      return "runner has no variable for the task file's directory, and this task's commands do not start there "
        + "('dir', [no-cd]): write the path relative to where they start"
    case "justfile", "source_file", "module_directory", "module_file":
      return "tasks run in the task file's directory (unless 'dir' says otherwise): use a relative path"
    case "just_executable": return "call the task with '- task: NAME' in 'run' instead of a nested just"
    case "env", "env_var", "env_var_or_default": return "read the variable in the command (\"${NAME:-default}\")"
    case "datetime", "datetime_utc": return "write $(date +FORMAT) in the command"
    case "uuid": return "write $(uuidgen) in the command"
    case "error": return "write 'echo MESSAGE >&2; exit 1' in the command"
    case "shell": return "run the command in the task's commands"
    default: return "compute the value in the command"
    }
  }

  // MARK: Rendering

  /// The pieces as shell text at `quoting`.
  static func shellText(_ pieces: [JustPiece], _ quoting: JustQuoting) throws(JustValueProblem) -> String {
    switch quoting {
    case .unquoted, .double, .hereDocument:
      var out = ""
      for piece in pieces {
        switch piece {
        case .text(let text): out += text
        case .variable(let name), .parameter(let name): out += "${\(name)}"
        // Unquoted, just splices the words joined with spaces and the shell splits them again: `$*`.
        case .arguments: out += "$*"
        case .shell(let expansion): out += expansion
        case .quotedWord(let inner):
          if quoting == .double {
            // Inside double quotes the quotes just writes are text: `'…'` around the value with
            // each `'` as `'\''`.
            let value = try shellText(inner, .double)
            out += "'$(printf '%s' \"" + value + "\" | sed \"s/'/'\\\\\\\\''/g\")'"
            continue
          }
          guard quoting == .unquoted else { throw .notCarried("quote() is carried outside quotes only") }
          out += "\"" + (try shellText(inner, .double)) + "\""
        case .quotedArguments:
          guard quoting == .unquoted else { throw .notCarried("quote() is carried outside quotes only") }
          out += "\"$@\""
        }
      }
      return out
    case .quotedHereDocument:
      guard let text = plainText(pieces) else {
        throw .notCarried(
          "the shell expands nothing in a here-document whose delimiter is quoted: unquote the delimiter")
      }
      return text
    case .script:
      return try scriptText(pieces)
    }
  }

  /// The pieces as text in a here-document whose text is escaped (a script handed to an
  /// interpreter): text pieces escaped, variables expanded by the shell.
  static func scriptText(_ pieces: [JustPiece]) throws(JustValueProblem) -> String {
    var out = ""
    for piece in pieces {
      switch piece {
      case .text(let text): out += escapedForHereDocument(text)
      case .variable(let name), .parameter(let name): out += "${\(name)}"
      case .arguments: out += "$*"
      case .shell(let expansion): out += expansion
      case .quotedWord, .quotedArguments: throw .notCarried("quote() is carried in shell commands only")
      }
    }
    return out
  }

  /// `text` in an unquoted here-document: `\`, `$` and backquotes escaped.
  static func escapedForHereDocument(_ text: String) -> String {
    var out = ""
    for character in text {
      if character == "\\" || character == "$" || character == "`" { out.append("\\") }
      out.append(character)
    }
    return out
  }

  /// The pieces as an `env` value, which reads other variables as `${NAME}`.
  static func environmentText(_ pieces: [JustPiece], _ notes: inout [String]) throws(JustValueProblem) -> String {
    var out = ""
    for piece in pieces {
      switch piece {
      case .text(let text): out += environmentLiteral(text, &notes)
      case .variable(let name), .parameter(let name): out += "${\(name)}"
      case .arguments: throw .notCarried("the variadic parameter's words cannot be passed on")
      case .shell(let expansion):
        throw JustValueProblem(level: .approximate, reason: "needs the shell to expand \(expansion)")
      case .quotedWord, .quotedArguments:
        throw .notCarried("quote() of a value known when the command runs needs the shell")
      }
    }
    return out
  }

  /// Literal text in an `env` value: a `${` that is not a `${NAME}` reference is escaped.
  static func environmentLiteral(_ text: String, _ notes: inout [String]) -> String {
    guard text.contains("${") else { return text }
    var out = ""
    var rest = Substring(text)
    while let range = rest.firstRange(of: "${") {
      out += rest[..<range.lowerBound]
      let after = rest[range.upperBound...]
      if let close = after.firstIndex(of: "}"), JustText.isVariableName(after[..<close]) {
        out += "${"
      } else {
        out += "$${"
        notes.append("'${' stays as written in runner's env (the shell expanded it after just spliced it in)")
      }
      rest = after
    }
    return out + rest
  }

  /// The pieces as a `with:` value, which reads the calling task's params as `${{ params.NAME }}`.
  static func withText(_ pieces: [JustPiece]) throws(JustValueProblem) -> String {
    var out = ""
    for piece in pieces {
      switch piece {
      case .text(let text): out += text
      case .parameter(let name): out += "${{ params.\(name) }}"
      case .variable(let name):
        throw .notCarried("'with:' values cannot read the environment ($\(name))")
      case .arguments: throw .notCarried("the variadic parameter's words cannot be passed on")
      case .shell(let expansion): throw .notCarried("'with:' values cannot expand \(expansion)")
      case .quotedWord, .quotedArguments:
        throw .notCarried("'with:' values cannot quote a value known when the command runs")
      }
    }
    return out
  }

  /// True for plain words, which the shell reads from `${NAME}` as it reads them spliced into
  /// the command: no quotes, `$`, backquotes, globs, `~`, backslashes or `{{`.
  static func isPlainWords(_ value: String) -> Bool {
    value.allSatisfy { $0.isLetter || $0.isNumber || " -_./,:+@=%".contains($0) }
  }

  /// The pieces as plain text (a default, a path), or nil.
  static func plainText(_ pieces: [JustPiece]) -> String? {
    var out = ""
    for piece in pieces {
      guard case .text(let text) = piece else { return nil }
      out += text
    }
    return out
  }

  /// `expression` as plain text, folding variables with plain values; nil otherwise.
  func constant(_ expression: JustExpression) -> String? { constant(expression, recipeName: nil) }

  /// As `constant(_:)`, in a recipe (`recipe_name()` is its name).
  func constant(_ expression: JustExpression, recipeName: String?) -> String? {
    var notes: [String] = []
    var scope = JustScope()
    scope.foldsVariables = true
    scope.recipeName = recipeName
    guard let pieces = try? pieces(expression, scope, &notes), notes.isEmpty else { return nil }
    return Self.plainText(pieces)
  }
}
