import RunnerLanguageServer

extension Runner {
  /// `runner lsp`: serves the Language Server Protocol on stdin and stdout until the client
  /// exits. - Returns: the exit code (0 after `shutdown` and `exit`).
  public static func languageServer() -> Int32 {
    var server = LanguageServer(version: version)
    return server.run()
  }
}
