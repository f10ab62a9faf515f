import RunnerModel

/// One value of a go-task `for:` loop: `{{.ITEM}}` (or the name `as:` gives it), and for a
/// matrix each `{{.ITEM.KEY}}`.
struct LoopItem: Sendable, Equatable {
  var name = "ITEM"
  var value = ""
  /// A matrix's values, by key, in the matrix's order.
  var fields: [(key: String, value: String)] = []

  static func == (left: LoopItem, right: LoopItem) -> Bool {
    left.name == right.name && left.value == right.value && left.fields.elementsEqual(right.fields, by: ==)
  }

  /// The text for `{{.PATH}}`, or nil when the path is not this item's.
  func text(for path: String) -> String? {
    if path == name {
      return fields.isEmpty
        ? value
        : "map[" + fields.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " ") + "]"
    }
    guard path.hasPrefix(name + ".") else { return nil }
    return fields.first { $0.key == path.dropFirst(name.count + 1) }?.value
  }

  /// `text` with the item written in where it is named.
  func apply(_ text: String) -> String {
    var result = text
    for (key, value) in fields {
      for spelling in ["{{.\(name).\(key)}}", "{{ .\(name).\(key) }}"] {
        result = result.replacing(spelling, with: value)
      }
    }
    let whole = self.text(for: name) ?? value
    for spelling in ["{{.\(name)}}", "{{ .\(name) }}"] { result = result.replacing(spelling, with: whole) }
    return result
  }

  /// True when `text` names the item.
  func isNamed(in text: String) -> Bool { text.contains("{{.\(name)") || text.contains("{{ .\(name)") }
}

/// What a `for:` loops over.
enum Loop {
  /// Values known at import.
  case items([LoopItem])
  /// Words the shell finds when the command runs (`$(command)`, the task's sources): a shell
  /// `for` over them, the item in `$__runner_item`; for a call, runner's `for:` finds them
  /// when it loads the file (`found`).
  case shell(words: String, name: String, existing: Bool, found: FoundValues)
}

extension TaskfileImporter {
  /// What `for:` loops over; nil when it cannot be carried (reported).
  /// - Parameter call: the loop is a call's, so files found are never split at blanks.
  func loop(_ node: YAMLNode, _ context: Context, _ report: inout ImportReport, call: Bool = false) -> Loop? {
    let line = node.location.line
    switch node.kind {
    case .sequence(let values) where values.allSatisfy({ $0.scalar != nil }):
      return .items(values.compactMap(\.scalar).map { LoopItem(value: $0) })
    case .scalar(let kind, _) where kind == "sources" || kind == "generates":
      guard let patterns = context.taskFiles[kind], !patterns.isEmpty else { break }
      // The files the globs find now, each once, sorted, as go-task lists them (bash's globstar
      // for `**`); a pattern the shell would read otherwise is not carried. A call's loop is
      // runner's `for: { files: }`, which takes any glob (and `!` for go-task's `exclude:`).
      guard
        !patterns.contains(where: { $0.contains("{{") }),
        call
          || patterns.allSatisfy({ pattern in
            pattern.allSatisfy { $0.isLetter || $0.isNumber || "-_./*?[]{},:+@=%".contains($0) }
          })
      else { break }
      if !call {
        report.approximate(
          "for: \(kind)", at: line,
          "a shell loop over the files the globs find when the command runs (bash's globstar for **): a name "
            + "holding a blank splits in two")
      }
      return .shell(
        words: "$(shopt -s globstar; printf '%s\\n' \(patterns.joined(separator: " ")) | LC_ALL=C sort -u)",
        name: "ITEM", existing: true, found: .files(patterns))
    case .mapping(let entries):
      let field = { (key: String) in entries.first { $0.name == key }?.value }
      let name = field("as")?.scalar ?? "ITEM"
      if let matrix = field("matrix"), case .mapping(let axes) = matrix.kind {
        var items = [LoopItem(name: name)]
        for axis in axes {
          guard let values = list(axis.value, context, at: axis.key.location.line, &report) else {
            report.notCarried(
              "for: matrix: \(axis.name)", at: axis.key.location.line,
              "only a written list or a ref: to a list var is imported")
            return nil
          }
          items = items.flatMap { item in
            values.map { value in
              var next = item
              next.fields.append((axis.name, value))
              return next
            }
          }
        }
        return .items(items)
      }
      guard let variable = field("var")?.scalar else { break }
      let separator = field("split")?.scalar
      if let values = context.listVars[variable] {
        return .items(values.map { LoopItem(name: name, value: $0) })
      }
      if let value = context.knownValues[variable] {
        if context.fileParams[variable] != nil {
          report.approximate(
            "for: var: \(variable)", at: line,
            "the loop is over the file's value: runner \(variable)=… on the command line does not change it")
        }
        let parts =
          separator.map { value.split(separator: $0, omittingEmptySubsequences: false).map(String.init) }
          ?? value.split(whereSeparator: \.isWhitespace).map(String.init)
        return .items(parts.map { LoopItem(name: name, value: $0) })
      }
      if separator == nil, let command = context.commandVars[variable], !command.contains("{{") {
        return .shell(words: "$(\(command))", name: name, existing: false, found: .command(command))
      }
    default:
      break
    }
    report.notCarried(
      "for: \(node.scalar ?? "…")", at: line,
      "only a for: over a written list, a list var, a var's words, a matrix or the task's sources is imported")
    return nil
  }

  /// A list: written, `ref: .NAME` of a list var, or `ref: splitList "SEP" .NAME` of a var
  /// whose value the file writes (reported: `runner NAME=…` does not change the loop).
  func list(_ node: YAMLNode, _ context: Context, at line: Int, _ report: inout ImportReport) -> [String]? {
    switch node.kind {
    case .sequence(let values):
      let scalars = values.compactMap(\.scalar)
      return scalars.count == values.count ? scalars : nil
    case .mapping(let entries):
      guard entries.count == 1, entries[0].name == "ref", let reference = entries[0].value.scalar else { return nil }
      let words = reference.split(separator: " ")
      // A separator with an escape (`"\n"`) is Go's to read: not split here.
      if words.count == 3, words[0] == "splitList", words[1].count >= 3, words[1].hasPrefix("\""),
        !words[1].contains("\\"),
        words[1].hasSuffix("\""), words[2].hasPrefix("."), Self.isName(words[2].dropFirst()),
        let value = context.knownValues[String(words[2].dropFirst())]
      {
        let variable = String(words[2].dropFirst())
        if context.fileParams[variable] != nil {
          report.approximate(
            "ref: \(reference)", at: line,
            "the list is split from the file's value: runner \(variable)=… on the command line does not change it")
        }
        return value.split(separator: String(words[1].dropFirst().dropLast()), omittingEmptySubsequences: false)
          .map(String.init)
      }
      let name = JustText.trimmed(reference)
      guard name.hasPrefix("."), Self.isName(name.dropFirst()) else { return nil }
      return context.listVars[String(name.dropFirst())]
    case .scalar:
      return nil
    }
  }

  /// The text go-task prints for `{{.PATH}}` of a list or map var (`.LIST`, `.MAP.key`,
  /// `.LIST.0` for `index .LIST 0`): Go's `[a b]` and `map[k:v]`; nil when it is no such var.
  func structuredText(_ path: String, _ context: Context) -> String? {
    structuredNode(path.split(separator: ".").map(String.init), context).map(Self.goText)
  }

  /// The value at `path` (`MAP`, `key`, `0`, …) in a list or map var the file writes.
  func structuredNode(_ path: [String], _ context: Context) -> YAMLNode? {
    guard let first = path.first, var node = context.structuredVars[first] else { return nil }
    for part in path.dropFirst() {
      switch node.kind {
      case .mapping(let entries):
        guard let value = entries.first(where: { $0.name == part })?.value else { return nil }
        node = value
      case .sequence(let values):
        guard let index = Int(part), values.indices.contains(index) else { return nil }
        node = values[index]
      case .scalar:
        return nil
      }
    }
    return node
  }

  /// How Go's templates print a YAML value.
  static func goText(_ node: YAMLNode) -> String {
    switch node.kind {
    case .scalar(let text, _): return text
    case .sequence(let values): return "[" + values.map(goText).joined(separator: " ") + "]"
    case .mapping(let entries):
      return "map["
        + entries.sorted { $0.name < $1.name }.map { "\($0.name):\(goText($0.value))" }.joined(separator: " ") + "]"
    }
  }

  /// `{{index .NAME 0}}` as the path `NAME.0`; `{{.A.B}}` as `A.B`; nil for other templates.
  static func structuredPath(_ inner: Substring) -> String? {
    let words = inner.split(separator: " ")
    if words.count == 3, words[0] == "index", words[1].hasPrefix("."), Int(words[2]) != nil || words[2].hasPrefix("\"")
    {
      return String(words[1].dropFirst()) + "." + words[2].filter { $0 != "\"" }
    }
    guard inner.hasPrefix("."), inner.contains(".") else { return nil }
    let parts = inner.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count > 1, parts.allSatisfy({ isName($0) || Int($0) != nil }) else { return nil }
    return String(inner.dropFirst())
  }
}

extension TaskfileImporter {
  /// go-task refuses a var whose value is a mapping other than `sh:`, `ref:`, `map:` or
  /// `value:` (a map is written `map: {…}`): so does the import, in go-task's words.
  func checkVariableTypes(_ entries: [YAMLEntry]) throws(ImportError) {
    var blocks: [YAMLNode] = entries.filter { $0.name == "vars" }.map(\.value)
    if let tasks = entries.first(where: { $0.name == "tasks" })?.value, case .mapping(let all) = tasks.kind {
      for task in all {
        guard case .mapping(let fields) = task.value.kind else { continue }
        blocks += fields.filter { $0.name == "vars" }.map(\.value)
      }
    }
    for block in blocks {
      guard case .mapping(let vars) = block.kind else { continue }
      for variable in vars {
        guard case .mapping(let fields) = variable.value.kind else { continue }
        // `secret` is a modifier, in any position; every other key must be a type.
        if let unknown = fields.first(where: { !["sh", "ref", "map", "value", "secret"].contains($0.name) }) {
          throw ImportError(
            file: path, line: unknown.key.location.line,
            "go-task refuses the file: \"\(unknown.name)\" is not a valid variable type. Try \"sh\", \"ref\", "
              + "\"map\", \"value\" or using a scalar value")
        }
        if !fields.contains(where: { $0.name != "secret" }) {
          throw ImportError(
            file: path, line: variable.key.location.line,
            "go-task refuses the file: a variable must define one of \"sh\", \"ref\", \"map\", \"value\" or be "
              + "a scalar value")
        }
      }
    }
  }
}
