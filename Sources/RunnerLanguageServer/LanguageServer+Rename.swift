import RunnerBasics
import RunnerModel

/// Find references of a task, and rename it across the file and its includes.
extension LanguageServer {
  /// Why a rename was refused (an error response, shown by the editor).
  struct RenameProblem: Error {
    var message: String
  }

  /// The task named at a position, with the document's outline.
  func namedTask(_ params: JSONValue) -> (uri: String, outline: Outline, task: Outline.Entry)? {
    guard let (uri, text, line, character) = place(params), let word = text.word(line: line, character: character),
      let (outline, namespace) = view(of: uri),
      let task = outline.task(word, from: namespace) ?? outline.task(alias: word, from: namespace)
    else { return nil }
    return (uri, outline, task)
  }

  /// Every place the task is named: its key (when the request asks for it), `deps`, calls and
  /// `default`, in this file and its includes.
  func references(_ params: JSONValue) -> JSONValue? {
    guard let (uri, outline, task) = namedTask(params) else { return nil }
    let declaration = params["context"]?["includeDeclaration"] == .bool(true)
    let places = (declaration ? [task.location] : []) + (outline.references[task.name] ?? [])
    return .array(places.map { location($0, from: uri) })
  }

  /// A `WorkspaceEdit` renaming the task everywhere it is named: the last part of its name
  /// (`lib:fmt` → `lib:format`; a namespace is the include's, not the task's to change).
  func rename(_ params: JSONValue) -> Result<JSONValue, RenameProblem> {
    guard let (uri, outline, task) = namedTask(params) else {
      return .failure(RenameProblem(message: "no task is named here"))
    }
    guard let newName = params["newName"]?.string else { return .failure(RenameProblem(message: "no new name")) }
    let base = String(newName.split(separator: ":", omittingEmptySubsequences: false).last ?? "")
    let namespace = task.name.split(separator: ":").dropLast().joined(separator: ":")
    let spellings = [base, ":" + base] + (namespace.isEmpty ? [] : [namespace + ":" + base])
    guard !base.isEmpty, base.unicodeScalars.allSatisfy({ DocumentText.isNameScalar($0) && $0 != ":" }),
      spellings.contains(newName)
    else {
      return .failure(
        RenameProblem(message: "'\(newName)' is not a name for this task: give a new last part of '\(task.name)'"))
    }
    let renamed = namespace.isEmpty ? base : namespace + ":" + base
    if renamed != task.name, outline.task(renamed) != nil {
      return .failure(RenameProblem(message: "a task named '\(renamed)' is already there"))
    }
    let directory = FileURI.path(uri).map { FilePath.parent(of: $0) } ?? "/"
    var changes: [String: [JSONValue]] = [:]
    for place in [task.location] + (outline.references[task.name] ?? []) {
      let file = FileURI.normalized(FilePath.resolve(place.file, in: directory))
      let target = FileURI.uri(file)
      guard
        let text = documents[target]
          ?? (try? FileReader.read(file)).map({ DocumentText(String(decoding: $0, as: UTF8.self)) }),
        let (start, end, written) = Self.name(at: place, in: text)
      else { continue }
      // As written there: `fmt` in its own file, `lib:fmt` or `:fmt` elsewhere.
      let parts = written.split(separator: ":", omittingEmptySubsequences: false)
      // An alias used in `deps` stays an alias: it still names the task.
      guard parts.last.map(String.init) == task.name.split(separator: ":").last.map(String.init) else { continue }
      let replacement = parts.dropLast().joined(separator: ":") + (parts.count > 1 ? ":" : "") + base
      changes[target, default: []].append(
        .object([
          ("range", Self.range(line: place.line - 1, start: start, end: end)), ("newText", .string(replacement)),
        ]))
    }
    return .success(
      .object([("changes", .object(changes.sorted { $0.key < $1.key }.map { ($0.key, .array($0.value)) }))]))
  }

  /// The task name written at `location` (quotes and a key's colon left out), and its range.
  static func name(at location: SourceLocation, in text: DocumentText) -> (Int, Int, String)? {
    let line = location.line - 1
    let scalars = Array(text.line(line).unicodeScalars)
    var first = max(0, location.column - 1)
    if first < scalars.count, scalars[first] == "'" || scalars[first] == "\"" { first += 1 }
    var last = first
    while last < scalars.count, DocumentText.isNameScalar(scalars[last]) { last += 1 }
    // `build:` as a key: the colon (and only a final one) is YAML's.
    if last > first, scalars[last - 1] == ":", last == scalars.count || scalars[last] == " " { last -= 1 }
    guard last > first else { return nil }
    let written = String(String.UnicodeScalarView(scalars[first..<last]))
    let start = text.character(line: line, column: first + 1)
    return (start, text.character(line: line, column: last + 1), written)
  }
}

extension Outline {
  /// The task an alias names.
  func task(alias: String, from namespace: String = "") -> Entry? {
    (aliases[alias] ?? (namespace.isEmpty ? nil : aliases[namespace + ":" + alias])).flatMap { task($0) }
  }
}
