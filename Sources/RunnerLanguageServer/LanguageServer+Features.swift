import Glibc
import RunnerBasics
import RunnerModel

/// Completion, hover, go to definition and the outline, from the last check's `Outline` and
/// the document's text.
extension LanguageServer {
  /// The document, line and character a position request names.
  func place(_ params: JSONValue) -> (uri: String, text: DocumentText, line: Int, character: Int)? {
    guard let uri = params["textDocument"]?["uri"]?.string, let text = documents[uri],
      let line = params["position"]?["line"]?.integer, let character = params["position"]?["character"]?.integer
    else { return nil }
    return (uri, text, line, character)
  }

  /// What a document's features read: its own outline, or, for a file an open task file
  /// includes, that file's outline and the namespace the file's names are read in.
  func view(of uri: String) -> (outline: Outline, namespace: String)? {
    if let outline = outlines[uri] { return (outline, "") }
    guard let path = FileURI.path(uri) else { return nil }
    for root in documents.keys.sorted() where root != uri {
      if let outline = outlines[root], let namespace = outline.namespaces[path] { return (outline, namespace) }
    }
    return nil
  }

  func location(_ location: SourceLocation, from uri: String) -> JSONValue {
    let directory = FileURI.path(uri).map { FilePath.parent(of: $0) } ?? "/"
    let file = FileURI.normalized(FilePath.resolve(location.file, in: directory))
    let target = FileURI.uri(file)
    let text =
      documents[target] ?? (try? FileReader.read(file)).map { DocumentText(String(decoding: $0, as: UTF8.self)) }
    return .object([("uri", .string(target)), ("range", Self.range(location, in: text))])
  }

  /// The tasks of this document, as symbols.
  func symbols(_ params: JSONValue) -> JSONValue? {
    guard let uri = params["textDocument"]?["uri"]?.string, let path = FileURI.path(uri), let text = documents[uri],
      let (outline, namespace) = view(of: uri)
    else { return nil }
    let directory = FilePath.parent(of: path)
    let own = outline.tasks.filter { FileURI.normalized(FilePath.resolve($0.location.file, in: directory)) == path }
    return .array(
      own.map { task in
        let range = Self.range(task.location, in: text)
        var fields: [(String, JSONValue)] = [("name", .string(task.name(from: namespace))), ("kind", .int(12))]
        if let description = task.description { fields.append(("detail", .string(description))) }
        fields += [("range", range), ("selectionRange", range)]
        return .object(fields)
      })
  }

  /// A task named at the position: where it is written. An include's path: that file.
  func definition(_ params: JSONValue) -> JSONValue? {
    guard let (uri, text, line, character) = place(params), let word = text.word(line: line, character: character)
    else { return nil }
    if let param = paramDeclaration(word: word, line: line, text: text, uri: uri) {
      return location(param.location, from: uri)
    }
    let named = Self.dependencyInExpression(word) ?? word
    if let (outline, namespace) = view(of: uri),
      let task = outline.task(named, from: namespace) ?? outline.task(alias: named, from: namespace)
    {
      return location(task.location, from: uri)
    }
    guard text.keyPath(line: line).first == "includes" || text.line(line).trimmingLeadingBlanks().hasPrefix("includes")
    else { return nil }
    let directory = FileURI.path(uri).map { FilePath.parent(of: $0) } ?? "/"
    let file = FileURI.normalized(FilePath.resolve(word, in: directory))
    guard access(file, R_OK) == 0 else { return nil }
    return .object([("uri", .string(FileURI.uri(file))), ("range", Self.range(line: 0, start: 0, end: 0))])
  }

  /// A task's description, dependencies and params; a key's documentation.
  func hover(_ params: JSONValue) -> JSONValue? {
    guard let (uri, text, line, character) = place(params), let word = text.word(line: line, character: character)
    else { return nil }
    var markdown: String
    let named = Self.dependencyInExpression(word) ?? word
    if let param = paramDeclaration(word: word, line: line, text: text, uri: uri) {
      markdown = "param " + Self.shown(param)
      if let description = param.description { markdown += " — " + description }
    } else if let (outline, namespace) = view(of: uri),
      let task = outline.task(named, from: namespace) ?? outline.task(alias: named, from: namespace)
    {
      markdown = "**\(task.name(from: namespace))**"
      if let description = task.description { markdown += " — " + description }
      if !task.dependencies.isEmpty {
        markdown += "\n\ndeps: " + task.dependencies.map { "`\($0)`" }.joined(separator: ", ")
      }
      if !task.params.isEmpty { markdown += "\n\nparams: " + task.params.map(Self.shown).joined(separator: ", ") }
    } else if let doc = keyDocumentation(word, path: text.keyPath(line: line)) {
      markdown = "**\(word)** — \(doc)"
    } else {
      return nil
    }
    return .object([("contents", .object([("kind", .string("markdown")), ("value", .string(markdown))]))])
  }

  /// `build` in `deps.build.outputs.tag`.
  static func dependencyInExpression(_ word: String) -> String? {
    let parts = word.split(separator: ".")
    guard parts.count >= 2, parts[0] == "deps" else { return nil }
    return String(parts[1])
  }

  static func shown(_ param: ParamDeclaration) -> String {
    var text = "`\(param.name)`"
    if !param.choices.isEmpty {
      text += " (one of " + param.choices.joined(separator: ", ") + ")"
    } else if let value = param.defaultValue {
      text += " = `\(value)`"
    } else if param.isRequired {
      text += " (required)"
    }
    return text
  }

  func keyDocumentation(_ key: String, path: [String]) -> String? {
    if path.isEmpty { return KeyDocs.file.first { $0.key == key }?.value }
    if path.count == 2, path[0] == "tasks" { return KeyDocs.task.first { $0.key == key }?.value }
    return nil
  }

  /// Keys where a key may go, task names in `deps`, calls and `default`, a called task's params
  /// in `with:` and their choices.
  func completion(_ params: JSONValue) -> JSONValue? {
    guard let (uri, text, line, character) = place(params) else { return nil }
    let (outline, namespace) = view(of: uri) ?? (Outline(), "")
    let before = text.prefix(line: line, character: character)
    guard !text.inBlockScalar(line: line, cursor: character) else { return .array([]) }
    let trimmed = before.trimmingLeadingBlanks()
    let path = text.keyPath(line: line, cursor: character)
    let ownKey = trimmed.firstIndex(of: ":").map { String(trimmed[..<$0]).trimmingQuotes() }
    // In a flow collection (`test: { deps: [`), the key of the innermost one still open.
    let flowKey = Self.openFlowKey(before)
    if let inside = Self.openExpression(before) {
      let task = enclosingTask(path, outline: outline, namespace: namespace)
      return expressionCompletion(inside, task: task, outline: outline, namespace: namespace)
    }
    if path.count >= 2, path[0] == "tasks",
      let steps = imageStepCompletion(line: line, before: before, path: path, text: text)
    {
      return steps
    }
    // A call or a `deps` entry with `with:`: the params of the task it names.
    if let called = Self.calledTask(line: line, in: text), flowKey == "with" || path.last == "with",
      let task = outline.task(called, from: namespace)
    {
      if let param = Self.valueBeingWritten(before), let declaration = task.params.first(where: { $0.name == param }) {
        return .array(declaration.choices.map { Self.item($0, kind: 12, detail: "a choice of \(param)") })
      }
      return .array(task.params.map { Self.item($0.name, kind: 6, detail: $0.description ?? Self.shown($0)) })
    }
    // `default` names tasks at the top of the file only (a param's `default:` is a value).
    let key = flowKey ?? ownKey
    let namesTasks =
      path.last == "deps" || key == "deps" || (path == ["default"]) || (path.isEmpty && key == "default")
      || (Self.isCallKey(before) && (path.last == "run" || path.last == "deps" || key == "deps"))
    if namesTasks {
      return .array(
        outline.tasks.filter { namespace.isEmpty || $0.namespace == namespace || $0.namespace.isEmpty }.map { task in
          Self.item(task.name(from: namespace), kind: 3, detail: task.description ?? "task")
        })
    }
    // A task's keys inside its flow mapping: `build: { de`.
    if path == ["tasks"], let flowKey, flowKey == ownKey, Self.writingKey(before) {
      return .array(KeyDocs.task.map { Self.item($0.key, kind: 10, detail: $0.value) })
    }
    // A key being written: no ':' yet on the line.
    guard ownKey == nil, !trimmed.hasPrefix("-") else { return .array([]) }
    if path.isEmpty {
      return .array(KeyDocs.file.map { Self.item($0.key, kind: 10, detail: $0.value) })
    }
    if path.count == 2, path[0] == "tasks" {
      return .array(KeyDocs.task.map { Self.item($0.key, kind: 10, detail: $0.value) })
    }
    return .array([])
  }

  static func item(_ label: String, kind: Int, detail: String) -> JSONValue {
    .object([
      ("label", .string(label)), ("kind", .int(kind)),
      ("documentation", .object([("kind", .string("markdown")), ("value", .string(detail))])),
    ])
  }

  /// The key before the innermost `[` or `{` that `before` leaves open; nil outside one.
  static func openFlowKey(_ before: Substring) -> String? {
    var opened: [String.Index] = []
    var quote: Character?
    for index in before.indices {
      let character = before[index]
      if let open = quote {
        if character == open { quote = nil }
        continue
      }
      switch character {
      case "'", "\"": quote = character
      case "[", "{": opened.append(index)
      case "]", "}": if !opened.isEmpty { opened.removeLast() }
      default: break
      }
    }
    guard let innermost = opened.last else { return nil }
    var head = before[..<innermost]
    while let last = head.last, last == " " { head.removeLast() }
    guard head.last == ":" else { return nil }
    head.removeLast()
    let key = head.reversed().prefix { DocumentText.isNameScalar($0.unicodeScalars.first!) && $0 != ":" }
    return key.isEmpty ? nil : String(key.reversed())
  }

  /// True when the text before the cursor is a call's `task: ` waiting for a name.
  static func isCallKey(_ before: Substring) -> Bool {
    guard let range = before.firstRange(of: "task:") else { return false }
    return !before[range.upperBound...].contains(",")
  }

  /// True when the cursor is where a key of a flow mapping starts (`{ ` or `, `).
  static func writingKey(_ before: Substring) -> Bool {
    let head = before.reversed().drop { DocumentText.isNameScalar($0.unicodeScalars.first!) }.drop { $0 == " " }
    return head.first == "{" || head.first == ","
  }

  /// The task a line's `task: NAME` names.
  static func calledTask(in line: String) -> String? {
    guard let range = line.firstRange(of: "task:") else { return nil }
    let rest = line[range.upperBound...].trimmingLeadingBlanks()
    let name = rest.prefix { DocumentText.isNameScalar($0.unicodeScalars.first!) && $0 != "," }
    return name.isEmpty ? nil : String(name).trimmingQuotes()
  }

  /// In `with: { mode: rel`, the param whose value is being written (`mode`).
  static func valueBeingWritten(_ before: Substring) -> String? {
    guard let with = before.firstRange(of: "with:") else { return nil }
    let inside = before[with.upperBound...]
    let entry = inside.split(separator: ",", omittingEmptySubsequences: false).last ?? inside
    let cleaned = entry.drop { $0 == " " || $0 == "{" }
    guard let colon = cleaned.firstIndex(of: ":") else { return nil }
    let name = cleaned[..<colon].trimmingCharacters(in: " ")
    return name.isEmpty ? nil : name
  }
}
