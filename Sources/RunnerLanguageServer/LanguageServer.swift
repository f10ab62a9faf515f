import RunnerBasics
import RunnerModel

/// `runner lsp`: a Language Server (LSP 3.17) for task files over stdio, checking with runner's
/// own loader so that the editor and the command line never disagree.
///
/// One thread: it waits for the next message, or for the moment a changed document is due to
/// be checked (changes are checked `delay` after the last one), whichever comes first.
package struct LanguageServer {
  var channel: MessageChannel
  /// Open documents by URI.
  var documents: [String: DocumentText] = [:]
  /// When each changed document is due to be checked.
  var due: [String: ContinuousClock.Instant] = [:]
  /// What the last check of each document knew of its tasks.
  var outlines: [String: Outline] = [:]
  /// The client's URI of each open document, by path (published diagnostics go to it as the
  /// client spelled it).
  var paths: [String: String] = [:]
  /// What each document's check says, by the file it is about (itself, its includes).
  var said: [String: [String: [JSONValue]]] = [:]
  var initialized = false
  var shutdownRequested = false
  let delay: Duration
  let version: String

  package init(input: Int32 = 0, output: Int32 = 1, version: String, delay: Duration = .milliseconds(150)) {
    channel = MessageChannel(input: input, output: output)
    self.version = version
    self.delay = delay
  }

  /// Serves until the client says `exit` or closes the input.
  /// - Returns: 0 after `shutdown` then `exit`, else 1 (the protocol's rule).
  package mutating func run() -> Int32 {
    while true {
      switch channel.receive(until: due.values.min()) {
      case .ended: return shutdownRequested ? 0 : 1
      case .timedOut: break
      case .malformed(let reason):
        reply(.null, error: (-32700, reason))
      case .message(let message):
        if message["method"]?.string == "exit" { return shutdownRequested ? 0 : 1 }
        handle(message)
      }
      let now = ContinuousClock.now
      for (uri, when) in due where when <= now {
        due[uri] = nil
        check(uri)
      }
    }
  }

  mutating func handle(_ message: JSONValue) {
    guard case .object = message else {
      reply(.null, error: (-32600, "a message is a JSON object (batches are not part of the protocol)"))
      return
    }
    guard let method = message["method"]?.string else { return }  // a response to us: none is asked
    let id = message["id"]
    let params = message["params"] ?? .null
    guard initialized || method == "initialize" else {
      if let id { reply(id, error: (-32002, "the server is not initialized")) }
      return
    }
    guard !shutdownRequested else {
      if let id { reply(id, error: (-32600, "the server is shutting down")) }
      return
    }
    switch method {
    case "initialize":
      guard let id else { return }
      initialized = true
      reply(id, result: capabilities())
    case "shutdown":
      guard let id else { return }
      shutdownRequested = true
      reply(id, result: .null)
    case "textDocument/didOpen":
      guard let item = params["textDocument"], let uri = item["uri"]?.string, let text = item["text"]?.string
      else { return }
      documents[uri] = DocumentText(text)
      if let path = FileURI.path(uri) { paths[path] = uri }
      check(uri)
    case "textDocument/didChange":
      guard let uri = params["textDocument"]?["uri"]?.string,
        let text = params["contentChanges"]?.array?.last?["text"]?.string
      else { return }
      documents[uri] = DocumentText(text)
      due[uri] = ContinuousClock.now.advanced(by: delay)
    case "textDocument/didSave":
      if let uri = params["textDocument"]?["uri"]?.string, documents[uri] != nil {
        due[uri] = nil
        check(uri)
      }
    case "textDocument/didClose":
      guard let uri = params["textDocument"]?["uri"]?.string else { return }
      close(uri)
    case "textDocument/completion": answer(id) { $0.completion(params) }
    case "textDocument/hover": answer(id) { $0.hover(params) }
    case "textDocument/definition": answer(id) { $0.definition(params) }
    case "textDocument/documentSymbol": answer(id) { $0.symbols(params) }
    case "textDocument/references": answer(id) { $0.references(params) }
    case "textDocument/rename":
      guard let id else { return }
      switch rename(params) {
      case .success(let edit): reply(id, result: edit)
      case .failure(let problem): reply(id, error: (-32803, problem.message))
      }
    default:
      if let id { reply(id, error: (-32601, "runner's language server has no method '\(method)'")) }
    }
  }

  /// Answers request `id` with what `work` finds (`null` when it finds nothing).
  mutating func answer(_ id: JSONValue?, _ work: (inout LanguageServer) -> JSONValue?) {
    guard let id else { return }
    reply(id, result: work(&self) ?? .null)
  }

  func capabilities() -> JSONValue {
    .object([
      (
        "capabilities",
        .object([
          ("positionEncoding", .string("utf-16")),
          ("textDocumentSync", .object([("openClose", .bool(true)), ("change", .int(1)), ("save", .bool(true))])),
          ("completionProvider", .object([("triggerCharacters", .array([" ", "[", ",", ":"].map { .string($0) }))])),
          ("hoverProvider", .bool(true)),
          ("definitionProvider", .bool(true)),
          ("documentSymbolProvider", .bool(true)),
          ("referencesProvider", .bool(true)),
          ("renameProvider", .bool(true)),
        ])
      ),
      ("serverInfo", .object([("name", .string("runner")), ("version", .string(version))])),
    ])
  }

  func reply(_ id: JSONValue, result: JSONValue) {
    channel.send(.object([("jsonrpc", .string("2.0")), ("id", id), ("result", result)]))
  }

  func reply(_ id: JSONValue, error: (code: Int, message: String)) {
    channel.send(
      .object([
        ("jsonrpc", .string("2.0")), ("id", id),
        ("error", .object([("code", .int(error.code)), ("message", .string(error.message))])),
      ]))
  }

  func notify(_ method: String, _ params: JSONValue) {
    channel.send(.object([("jsonrpc", .string("2.0")), ("method", .string(method)), ("params", params)]))
  }
}
