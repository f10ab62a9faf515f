/// just's function calls: evaluated at import when their result depends only on arguments known
/// then, written as a shell command substitution when it depends on the machine, the files or
/// values known only when the command runs.
extension JustfileConversion {
  func evaluateCall(
    _ written: String, _ arguments: [JustExpression], _ scope: JustScope, _ notes: inout [String]
  ) throws(JustValueProblem) -> JustEvaluated {
    if let function = justfile.functions.first(where: { $0.name == written }) {
      return try userFunction(function, arguments, scope, &notes)
    }
    // `assert(condition, message)` whose condition is known true now: it gives empty text.
    if written == "assert", arguments.count == 2, case .known(true)? = try? truth(of: arguments[0], scope, &notes) {
      return .known([""])
    }
    var name = written
    if name.hasSuffix("_dir") { name += "ectory" }
    if name.hasSuffix("_dir_native") { name = String(name.dropLast("_dir_native".count)) + "_directory_native" }
    // Functions whose arguments are read as written (variable names, quoting) keep their own forms.
    if [
      "env", "env_var", "env_var_or_default", "quote", "join", "invocation_directory", "home_directory",
      "justfile_directory", "source_directory", "recipe_name", "invocation_directory_native",
    ].contains(name) {
      var values: [[String]] = []
      for argument in arguments {
        guard case .known(let known) = try? evaluate(argument, scope, &notes) else { break }
        values.append(known)
      }
      if name == "quote" || name == "join", values.count == arguments.count,
        let result = JustFunctions.evaluate(name, values, lists: settings.lists)
      {
        return .known(result)
      }
      if name == "quote", settings.lists, arguments.count == 1,
        case .arguments = try evaluate(arguments[0], scope, &notes)
      {
        // Each word quoted on its own: the words themselves, one argument each.
        return .word([.quotedArguments])
      }
      return Self.evaluated(try call(written, arguments, scope, &notes))
    }
    var values: [JustEvaluated] = []
    for argument in arguments { values.append(try evaluate(argument, scope, &notes)) }
    let known = values.compactMap { value -> [String]? in
      if case .known(let elements) = value { return elements }
      return nil
    }
    if known.count == values.count {
      if let result = JustFunctions.evaluate(name, known, lists: settings.lists) { return .known(result) }
      if name == "replace_regex", let result = Self.replacingRegex(known.map { $0.joined(separator: " ") }) {
        notes.append("replaced at import with Swift's regular expressions (just: Rust's regex crate)")
        return .known([result])
      }
    }
    if let runtime = try runtimeCall(name, values, &notes) { return runtime }
    return Self.evaluated(try call(written, arguments, scope, &notes))
  }

  /// The functions the shell computes when the command runs (`$(uname -m)`, `[ -e PATH ]` …).
  func runtimeCall(_ name: String, _ values: [JustEvaluated], _ notes: inout [String]) throws(JustValueProblem)
    -> JustEvaluated?
  {
    var words: [String] = []
    for value in values { words.append(try Self.quotedWord(pieces(of: value))) }
    func substitution(_ command: String) -> JustEvaluated { .word([.shell("$(\(command))")]) }
    switch (name, words.count) {
    case ("arch", 0):
      notes.append("$(uname -m): the same name as just's on x86_64 and aarch64 (just says 'arm' for armv7l)")
      return substitution("uname -m")
    case ("num_cpus", 0): return substitution("nproc")
    case ("uuid", 0): return substitution("cat /proc/sys/kernel/random/uuid")
    case ("datetime", 1), ("datetime_utc", 1):
      notes.append("date's strftime formats, which chrono's mostly share")
      return substitution("date \(name == "datetime_utc" ? "-u " : "")+\(words[0])")
    case ("path_exists", 1): return .condition("[ -e \(words[0]) ]")
    case ("sha256", 1): return substitution("printf '%s' \(words[0]) | sha256sum | cut -c1-64")
    case ("sha256_file", 1): return substitution("sha256sum -- \(words[0]) | cut -c1-64")
    case ("absolute_path", 1): return substitution("realpath -ms -- \(words[0])")
    case ("canonicalize", 1):
      notes.append("a path that does not exist gives an empty value (just stops with an error)")
      return substitution("realpath -e -- \(words[0])")
    case ("read", 1):
      notes.append("$(cat …) drops the file's trailing line breaks")
      return substitution("cat -- \(words[0])")
    case ("which", 1): return .optional([.shell("$(command -v -- \(words[0]))")])
    case ("require", 1):
      notes.append("a program not found gives an empty value (just stops with an error)")
      return substitution("command -v -- \(words[0])")
    case ("uppercase", 1), ("lowercase", 1):
      notes.append("tr changes ASCII letters only (just: all of Unicode)")
      let (from, to) = name == "uppercase" ? ("[:lower:]", "[:upper:]") : ("[:upper:]", "[:lower:]")
      return substitution("printf '%s' \(words[0]) | tr '\(from)' '\(to)'")
    case ("replace", 3):
      // awk finds and replaces text as it is (sed would read the pattern as a regular expression).
      let program =
        "BEGIN { s = ENVIRON[\"s\"]; f = ENVIRON[\"f\"]; o = \"\"; if (f == \"\") { printf \"%s\", s; exit } "
        + "while ((i = index(s, f)) > 0) { o = o substr(s, 1, i - 1) ENVIRON[\"t\"]; s = substr(s, i + length(f)) } "
        + "printf \"%s\", o s }"
      if words[1] == "''" {
        notes.append(
          "an empty pattern leaves the text as it is (just puts the replacement between every two characters)")
      }
      return substitution("s=\(words[0]) f=\(words[1]) t=\(words[2]) awk '\(program)'")
    case ("show", 1):
      notes.append("a line break, tab or carriage return in a value is shown as it is (just: \\n, \\t, \\r)")
      let escaped = "printf '%s' \"$a\" | sed 's/[\\\\\"]/\\\\&/g'"
      guard case .arguments = values[0], settings.lists else {
        return substitution("a=\(words[0]); printf '\"%s\"' \"$(\(escaped))\"")
      }
      return substitution(
        "if [ \"$#\" -eq 1 ]; then a=\"$1\"; printf '\"%s\"' \"$(\(escaped))\"; else printf '['; s=; "
          + "for a in \"$@\"; do printf '%s\"%s\"' \"$s\" \"$(\(escaped))\"; s=', '; done; printf ']'; fi")
    case ("cache_directory", 0): return .word([.shell("${XDG_CACHE_HOME:-${HOME}/.cache}")])
    case ("config_directory", 0), ("config_local_directory", 0):
      return .word([.shell("${XDG_CONFIG_HOME:-${HOME}/.config}")])
    case ("data_directory", 0), ("data_local_directory", 0):
      return .word([.shell("${XDG_DATA_HOME:-${HOME}/.local/share}")])
    case ("executable_directory", 0): return .word([.shell("${XDG_BIN_HOME:-${HOME}/.local/bin}")])
    default: return nil
    }
  }

  /// `replace_regex(text, regex, replacement)` at import: Swift's regular expressions, with
  /// `$1`, `${1}` and `${name}` in the replacement as Rust's regex crate reads them.
  static func replacingRegex(_ strings: [String]) -> String? {
    guard strings.count == 3, let regex = try? Regex(strings[1]) else { return nil }
    let replacement = Array(strings[2])
    var out = ""
    var rest = Substring(strings[0])
    for match in strings[0].matches(of: regex) {
      out += strings[0][rest.startIndex..<match.range.lowerBound]
      var index = 0
      while index < replacement.count {
        guard replacement[index] == "$", index + 1 < replacement.count else {
          out.append(replacement[index])
          index += 1
          continue
        }
        if replacement[index + 1] == "$" {
          out.append("$")
          index += 2
          continue
        }
        var name = ""
        var end = index + 1
        if replacement[end] == "{" {
          guard let close = replacement[end...].firstIndex(of: "}") else { return nil }
          name = String(replacement[(end + 1)..<close])
          end = close + 1
        } else {
          while end < replacement.count,
            replacement[end].isLetter || replacement[end].isNumber || replacement[end] == "_"
          {
            name.append(replacement[end])
            end += 1
          }
        }
        guard !name.isEmpty else {
          out.append("$")
          index += 1
          continue
        }
        if let number = Int(name) {
          if number < match.output.count, let group = match.output[number].substring { out += group }
        } else if let group = match.output[name]?.substring {
          out += group
        }
        index = end
      }
      rest = strings[0][match.range.upperBound...]
    }
    return out + rest
  }

  /// A user-defined function: its body with the arguments in place of its parameters,
  /// evaluated where the call stands. Its other names are the file's variables, so a recipe
  /// parameter of such a name (which would take their place) is not carried.
  func userFunction(
    _ function: JustFunction, _ arguments: [JustExpression], _ scope: JustScope, _ notes: inout [String]
  ) throws(JustValueProblem) -> JustEvaluated {
    guard arguments.count == function.parameters.count, scope.functionDepth < 32 else {
      throw .notCarried("\(function.name)() takes \(function.parameters.count) arguments (or calls itself)")
    }
    let free = Set(Self.references(function.body)).subtracting(function.parameters)
    if let shadowed = free.first(where: { scope.parameters[$0] != nil || $0 == scope.variadic }) {
      throw .notCarried("\(function.name)() reads the variable \(shadowed), which a parameter of the recipe hides here")
    }
    let values = Dictionary(zip(function.parameters, arguments), uniquingKeysWith: { first, _ in first })
    var inner = scope
    inner.functionDepth += 1
    return try evaluate(Self.substituting(values, in: function.body), inner, &notes)
  }

  /// `expression` with each variable named in `values` replaced by its expression.
  static func substituting(_ values: [String: JustExpression], in expression: JustExpression) -> JustExpression {
    let again = { (inner: JustExpression) in substituting(values, in: inner) }
    switch expression {
    case .variable(let name): return values[name] ?? expression
    case .literal, .backtick, .other: return expression
    case .call(let name, let arguments): return .call(name, arguments.map(again))
    case .concatenation(let parts): return .concatenation(parts.map(again))
    case .format(let parts): return .format(parts.map(again))
    case .conditional(let condition, let then, let otherwise):
      return .conditional(again(condition), again(then), otherwise.map(again))
    case .comparison(let operation, let left, let right): return .comparison(operation, again(left), again(right))
    case .or(let left, let right): return .or(again(left), again(right))
    case .and(let left, let right): return .and(again(left), again(right))
    case .not(let operand): return .not(again(operand))
    case .list(let items): return .list(items.map(again))
    case .listConcatenation(let left, let right): return .listConcatenation(again(left), again(right))
    }
  }
}
