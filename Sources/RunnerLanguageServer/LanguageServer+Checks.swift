import RunnerBasics
import RunnerModel

/// Checking a document with runner's loader, and publishing what it says.
extension LanguageServer {
  /// The loader an editor may use: it runs no command and lists no files (a `sh:` default is
  /// empty, a `for: { files: }` finds nothing): opening a file must not run what it says.
  static func loader() -> TaskFileLoader {
    var loader = TaskFileLoader()
    loader.commandOutput = { _, _ in (0, "") }
    loader.matchFiles = { _, _ in [] }
    return loader
  }

  /// Checks `uri` as `runner` would load it, and publishes the diagnostics: those in an
  /// included file to that file, and also at the `includes` entry that pulls it in.
  mutating func check(_ uri: String) {
    guard let document = documents[uri], let path = FileURI.path(uri) else { return }
    let loader = Self.loader()
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
    var byFile: [String: [JSONValue]] = [uri: []]
    var texts: [String: DocumentText] = [uri: document]
    for diagnostic in found {
      let file = diagnostic.location.map { FileURI.normalized(FilePath.resolve($0.file, in: directory)) } ?? path
      let target = FileURI.uri(file)
      if texts[target] == nil {
        texts[target] =
          documents[target]
          ?? DocumentText((try? FileReader.read(file)).map { String(decoding: $0, as: UTF8.self) } ?? "")
      }
      byFile[target, default: []].append(Self.diagnostic(diagnostic, in: texts[target]!, directory: directory))
      guard target != uri else { continue }
      // Shown at the include line too: the file that has the error may not be open.
      for include in includes where FileURI.normalized(FilePath.resolve(include.path, in: directory)) == file {
        var pointer = diagnostic
        pointer.message = "in \(include.path): \(diagnostic.message)"
        pointer.location = include.location
        byFile[uri, default: []].append(Self.diagnostic(pointer, in: document, directory: directory))
      }
    }
    for stale in (published[uri] ?? []).subtracting(byFile.keys) { publish(stale, []) }
    for (target, list) in byFile.sorted(by: { $0.key < $1.key }) { publish(target, list) }
    published[uri] = Set(byFile.keys)
  }

  func publish(_ uri: String, _ diagnostics: [JSONValue]) {
    notify(
      "textDocument/publishDiagnostics",
      .object([("uri", .string(uri)), ("diagnostics", .array(diagnostics))]))
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
      let file = FileURI.normalized(FilePath.resolve(location.file, in: directory))
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
