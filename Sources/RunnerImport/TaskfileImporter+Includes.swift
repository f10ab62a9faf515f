import RunnerModel

extension TaskfileImporter {
  /// `includes:`: each becomes a runner include of the file's own import (`runner import` it
  /// too). `dir:` and `vars:` carry over as the include's `dir:` and `with:`; an alias is a
  /// second include of the same file.
  func includes(_ node: YAMLNode, _ context: Context, _ report: inout ImportReport) -> [ImportedInclude] {
    guard case .mapping(let entries) = node.kind else { return [] }
    var result: [ImportedInclude] = []
    for entry in entries {
      let line = entry.key.location.line
      var taskfile: YAMLEntry?
      var include = ImportedInclude(namespace: entry.name, path: "")
      var vars: [YAMLEntry] = []
      var aliases: [String] = []
      if entry.value.scalar != nil {
        taskfile = entry
      } else if case .mapping(let fields) = entry.value.kind {
        for field in fields {
          switch field.name {
          case "taskfile": taskfile = field
          case "optional": include.optional = field.value.scalar == "true"
          case "dir":
            include.directory = field.value.scalar.flatMap { loadTimeText($0, line: field.key.location.line, context) }
            if include.directory == nil {
              report.notCarried(
                "includes: \(entry.name): dir", at: field.key.location.line,
                "only a path the import can work out (plain, or from the file's plain vars) is carried")
            }
          case "vars":
            if case .mapping(let given) = field.value.kind { vars = given }
          case "aliases":
            // A second include of the same file, the same way: runner's second name of its tasks.
            if case .sequence(let names) = field.value.kind { aliases = names.compactMap(\.scalar) }
          case "internal", "flatten", "excludes", "checksum":
            report.notCarried(
              "includes: \(entry.name): \(field.name)", at: field.key.location.line,
              "runner's includes have no such setting")
          default: break
          }
        }
      }
      guard let taskfile, let written = taskfile.value.scalar else { continue }
      guard let source = loadTimeText(written, line: taskfile.key.location.line, context) else {
        report.notCarried(
          "includes: \(entry.name): \(written)", at: taskfile.key.location.line,
          "only a path the import can work out (plain, or from the file's plain vars) is carried")
        continue
      }
      let target = includedPath(source)
      include.path = target.path
      // go-task runs an included file's tasks where the including file's run, unless `dir:` says.
      var setsDirectory = false
      if case .mapping(let fields) = entry.value.kind { setsDirectory = fields.contains { $0.name == "dir" } }
      if include.directory == nil, !setsDirectory {
        include.directory = "."
      }
      include.with = includeValues(vars, of: target.source, context, &report)
      report.approximate(
        "includes: \(entry.name)", at: line,
        "import the included file too: runner import \(target.source) -o \(target.path)")
      result.append(include)
      for alias in aliases {
        var second = include
        second.namespace = alias
        result.append(second)
      }
    }
    return result
  }

  /// An include's `vars:` as `with:` values. go-task gives the included file's own vars
  /// precedence: only one written as `{{.NAME | default …}}` takes the include's value; one it
  /// sets outright ignores it (so the import passes nothing), and one it does not declare is
  /// reported (runner's included file would need it as a param).
  func includeValues(
    _ vars: [YAMLEntry], of source: String, _ context: Context, _ report: inout ImportReport
  ) -> [(name: String, value: String)] {
    guard !vars.isEmpty else { return [] }
    let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) + "/" : ""
    let declared = Self.fileVars(ofTaskfile: onDisk(folder + source))
    var result: [(name: String, value: String)] = []
    for variable in vars {
      let line = variable.key.location.line
      guard let own = declared[variable.name] else {
        report.notCarried(
          "includes: vars: \(variable.name)", at: line,
          "the included file does not declare it: declare it there as a var with {{.\(variable.name) | default …}}")
        continue
      }
      guard let fallback = Self.selfDefault(of: variable.name, own) else {
        // Set outright there, it wins over the include's value, as in go-task; another template
        // the import cannot read is said.
        if own.contains("{{") {
          report.notCarried(
            "includes: vars: \(variable.name)", at: line,
            "the included file's value is a template the import does not read as {{.\(variable.name) | default …}}")
        }
        continue
      }
      guard Self.isPlainWords(fallback),
        let value = variable.value.scalar.flatMap({ loadTimeText($0, line: line, context) }), Self.isPlainWords(value)
      else {
        report.notCarried(
          "includes: vars: \(variable.name)", at: line,
          "only plain words are passed (go-task splices the value into the commands' text)")
        continue
      }
      result.append((variable.name, value))
    }
    return result
  }

  /// Text with `{{.NAME}}` of the file's plain vars and `{{OS}}`/`{{ARCH}}` written in, as
  /// go-task fills them in when it reads the file; nil when another template is left.
  func loadTimeText(_ text: String, line: Int, _ context: Context) -> String? {
    guard text.contains("{{") else { return text }
    var result = ""
    var rest = Substring(text)
    while let open = rest.firstRange(of: "{{") {
      result += rest[..<open.lowerBound]
      guard let close = rest[open.upperBound...].firstRange(of: "}}") else { return nil }
      let inner = JustText.trimmed(String(rest[open.upperBound..<close.lowerBound]))
      if inner == "OS" || inner == "OS()" {
        result += "linux"
      } else if inner.hasPrefix("."), let value = context.knownValues[String(inner.dropFirst())] {
        result += value
      } else {
        return nil
      }
      rest = rest[close.upperBound...]
    }
    return result + rest
  }

  /// The top-level `vars` of a Taskfile on disk (scalar values only), by name; empty when it
  /// cannot be read.
  static func fileVars(ofTaskfile path: String) -> [String: String] {
    guard let text = JustfileImporter.readText(path),
      let root = try? YAMLParser(file: path).parse(Array(text.utf8)), case .mapping(let entries) = root.kind,
      let vars = entries.first(where: { $0.name == "vars" })?.value, case .mapping(let all) = vars.kind
    else { return [:] }
    var result: [String: String] = [:]
    for variable in all { result[variable.name] = variable.value.scalar ?? "" }
    return result
  }

  /// The default in go-task's idiom for a var a caller or an includer may set,
  /// `NAME: '{{.NAME | default "value"}}'` (or `{{default "value" .NAME}}`); nil otherwise.
  static func selfDefault(of name: String, _ value: String) -> String? {
    let text = JustText.trimmed(value)
    guard text.hasPrefix("{{"), text.hasSuffix("}}") else { return nil }
    let inner = JustText.trimmed(String(text.dropFirst(2).dropLast(2))).replacing("|", with: " | ")
    let words = inner.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    let literal: String
    if words.count == 4, words[0] == ".\(name)", words[1] == "|", words[2] == "default" {
      literal = words[3]
    } else if words.count == 3, words[0] == "default", words[2] == ".\(name)" {
      literal = words[1]
    } else {
      return nil
    }
    guard literal.count >= 2, let quote = literal.first, quote == "\"" || quote == "`", literal.last == quote else {
      return nil
    }
    let body = literal.dropFirst().dropLast()
    guard !body.contains("\"") && !body.contains("\\") else { return nil }
    return String(body)
  }

  /// An include's Taskfile (a directory means its Taskfile.yml) and the tasks.yml beside it.
  func includedPath(_ written: String) -> (source: String, path: String) {
    var path = written.hasPrefix("./") ? String(written.dropFirst(2)) : written
    if path.hasSuffix("/") { path.removeLast() }
    let lowered = path.lowercased()
    if lowered.hasSuffix(".yml") || lowered.hasSuffix(".yaml") {
      let slash = path.lastIndex(of: "/")
      let directory = slash.map { String(path[...$0]) } ?? ""
      let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
      // A Taskfile of another directory becomes that directory's tasks.yml; any other file keeps its
      // own name (`DistTasks.yml` → `DistTasks.tasks.yml`, `Taskfile.lib.yml` → `Taskfile.lib.tasks.yml`),
      // so none is named like the including file's own tasks.yml or another include's.
      let standard = ["taskfile.yml", "taskfile.yaml", "taskfile.dist.yml", "taskfile.dist.yaml"]
      if standard.contains(name.lowercased()), !directory.isEmpty { return (path, directory + "tasks.yml") }
      let stem = name.dropLast(lowered.hasSuffix(".yml") ? 4 : 5)
      return (path, directory + stem + ".tasks.yml")
    }
    return (path + "/Taskfile.yml", path + "/tasks.yml")
  }
}
