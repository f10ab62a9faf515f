import RunnerBasics
import RunnerModel

/// Checking a document with runner's loader, and publishing what it says.
extension LanguageServer {
  /// The loader an editor may use: it runs no command and lists no files for `for:` (a `sh:`
  /// default is empty, a `for: { files: }` finds nothing); open documents' unsaved text
  /// stands for their files.
  func loader(besides uri: String) -> TaskFileLoader {
    var loader = TaskFileLoader()
    loader.commandOutput = { _, _ in (0, "") }
    loader.matchFiles = { _, _ in [] }
    for (other, text) in documents where other != uri {
      if let path = FileURI.path(other) { loader.unsaved[path] = Array(text.text.utf8) }
    }
    return loader
  }

  /// Whether a document is a task file: `tasks.yml`, `NAME.tasks.yml` (what `runner import`
  /// writes for an include), or one that names runner's schema near its top. Other YAML
  /// (workflows, manifests) is left alone.
  static func isTaskFile(_ path: String, _ text: DocumentText) -> Bool {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    if ["tasks.yml", "tasks.yaml"].contains(name) || name.hasSuffix(".tasks.yml") || name.hasSuffix(".tasks.yaml") {
      return true
    }
    return text.lines.prefix(5).contains { $0.contains("tasks.schema.json") }
  }

  /// Checks `uri`: through the open documents that include it (what they give it counts), or
  /// alone when none does and it is a task file.
  mutating func check(_ uri: String) {
    guard let document = documents[uri], let path = FileURI.path(uri) else { return }
    let includers = documents.keys.filter { $0 != uri && outlines[$0]?.files.contains(path) == true }.sorted()
    if !includers.isEmpty {
      forget(uri)
      // Its names are read through its includer's outline now (`view(of:)`).
      outlines[uri] = nil
      for root in includers { checkAlone(root) }
      // Said even when empty: the editor shows the file as checked.
      publish(path)
      return
    }
    guard Self.isTaskFile(path, document) else {
      forget(uri)
      return
    }
    checkAlone(uri)
  }

  /// Checks `uri` as `runner` would load it, and publishes the diagnostics: those in an
  /// included file to that file, and also at the `includes` entry that pulls it in.
  mutating func checkAlone(_ uri: String) {
    guard let document = documents[uri], let path = FileURI.path(uri) else { return }
    let loader = loader(besides: uri)
    let bytes = Array(document.text.utf8)
    let (file, found) = loader.check(bytes: bytes, path: path)
    if let file {
      outlines[uri] = Outline(file)
    } else if !found.isEmpty, let own = try? loader.decode(bytes: bytes, path: path) {
      // The includes do not load: this file's own tasks at least.
      outlines[uri] = Outline(own)
    }
    let includes = outlines[uri]?.includes ?? []
    let directory = FilePath.parent(of: path)
    var byFile: [String: [JSONValue]] = [path: []]
    for diagnostic in found {
      let file = diagnostic.location.map { FilePath.lexical(FilePath.resolve($0.file, in: directory)) } ?? path
      byFile[file, default: []].append(Self.diagnostic(diagnostic, in: text(of: file), directory: directory))
      guard file != path else { continue }
      // Shown at the include line too: the file that has the error may not be open.
      for include in includes where FilePath.lexical(FilePath.resolve(include.path, in: directory)) == file {
        var pointer = diagnostic
        pointer.message = "in \(include.path): \(diagnostic.message)"
        pointer.location = include.location
        byFile[path, default: []].append(Self.diagnostic(pointer, in: document, directory: directory))
      }
    }
    let before = Set(said[uri].map { Array($0.keys) } ?? [])
    said[uri] = byFile
    for target in before.union(byFile.keys).sorted() { publish(target) }
  }

  /// Takes back what `uri`'s checks said.
  mutating func forget(_ uri: String) {
    guard let old = said.removeValue(forKey: uri) else { return }
    for target in old.keys.sorted() { publish(target) }
  }

  /// A document closed: what it said goes; what it includes, or what includes it, is checked
  /// again without its unsaved text.
  mutating func close(_ uri: String) {
    let files = outlines[uri]?.files ?? []
    let path = FileURI.path(uri)
    let includers = documents.keys.filter { other in
      other != uri && path.map { outlines[other]?.files.contains($0) == true } == true
    }
    documents[uri] = nil
    due[uri] = nil
    outlines[uri] = nil
    if let path { paths[path] = nil }
    forget(uri)
    for root in includers.sorted() { checkAlone(root) }
    for other in documents.keys.sorted() where FileURI.path(other).map(files.contains) == true { check(other) }
  }

  /// The text of a file: the editor's when it is open, else what is on disk.
  func text(of path: String) -> DocumentText {
    if let uri = paths[path], let text = documents[uri] { return text }
    return DocumentText((try? FileReader.read(path)).map { String(decoding: $0, as: UTF8.self) } ?? "")
  }

  /// Publishes everything the checks say of `path`, to the URI the client knows it by.
  func publish(_ path: String) {
    let merged = said.keys.sorted().flatMap { said[$0]?[path] ?? [] }
    notify(
      "textDocument/publishDiagnostics",
      .object([("uri", .string(paths[path] ?? FileURI.uri(path))), ("diagnostics", .array(merged))]))
  }

  /// A diagnostic as the protocol has it: a range over the word at its place, its notes as
  /// related information.
  static func diagnostic(_ diagnostic: Diagnostic, in text: DocumentText, directory: String) -> JSONValue {
    let severity: Int
    switch diagnostic.severity {
    case .error: severity = 1
    case .warning: severity = 2
    case .note: severity = 3
    }
    var message = diagnostic.message
    var related: [JSONValue] = []
    for note in diagnostic.notes {
      guard let location = note.location else {
        message += "\n" + note.message
        continue
      }
      let file = FilePath.lexical(FilePath.resolve(location.file, in: directory))
      related.append(
        .object([
          ("location", .object([("uri", .string(FileURI.uri(file))), ("range", range(location, in: nil))])),
          ("message", .string(note.message)),
        ]))
    }
    var fields: [(String, JSONValue)] = [
      ("range", diagnostic.location.map { range($0, in: text) } ?? range(line: 0, start: 0, end: 0)),
      ("severity", .int(severity)), ("source", .string("runner")), ("message", .string(message)),
    ]
    if !related.isEmpty { fields.append(("relatedInformation", .array(related))) }
    return .object(fields)
  }

  /// The range of the word at `location` (one character when the text is not known).
  static func range(_ location: SourceLocation, in text: DocumentText?) -> JSONValue {
    let line = max(0, location.line - 1)
    guard let text else { return range(line: line, start: location.column - 1, end: location.column) }
    let (start, end) = text.wordRange(line: line, column: location.column)
    return range(line: line, start: start, end: end)
  }

  static func range(line: Int, start: Int, end: Int) -> JSONValue {
    .object([
      ("start", .object([("line", .int(line)), ("character", .int(max(0, start)))])),
      ("end", .object([("line", .int(line)), ("character", .int(max(0, end)))])),
    ])
  }
}
