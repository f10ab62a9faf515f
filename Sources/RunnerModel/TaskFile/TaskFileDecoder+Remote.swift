extension TaskFileDecoder {
  static let remoteKeys = ["cache", "upload", "ca", "timeout"]

  /// `remote:`: the remote cache a run uses unless the command line names one. Headers (tokens)
  /// are not written here: they come from `--remote-header` or `RUNNER_REMOTE_HEADERS`.
  mutating func remote(_ node: YAMLNode) -> RemoteSettings? {
    guard
      let entries = reader.mapping(node, what: "'remote'", allowed: Self.remoteKeys, place: "'remote'")
    else { return nil }
    var settings = RemoteSettings(location: node.location)
    for entry in entries {
      let what = "'\(entry.name)' of 'remote'"
      switch entry.name {
      case "cache":
        guard let text = reader.string(entry.value, what: what) else { continue }
        guard RemoteSettings.schemes.contains(where: { text.hasPrefix($0 + "://") }) else {
          reader.fail(
            .invalidValue(
              what: what, reason: "must be a grpc://, grpcs://, http:// or https:// address, found '\(text)'"),
            at: entry.value)
          continue
        }
        settings.cache = text
        settings.location = entry.value.location
      case "upload": settings.upload = reader.boolean(entry.value, what: what)
      case "ca": settings.certificateAuthority = reader.string(entry.value, what: what)
      case "timeout":
        if let limit = reader.timeLimit(entry.value, what: what) { settings.timeout = limit == .zero ? nil : limit }
      default: break
      }
    }
    return settings
  }
}

/// The task file's `remote:` section.
package struct RemoteSettings: Sendable {
  static let schemes = ["grpc", "grpcs", "http", "https"]

  /// The cache's address (`grpc://host:port[/instance]`, `http(s)://host:port/prefix`).
  package var cache: String?
  /// false: read from the cache, never store in it.
  package var upload: Bool?
  /// A PEM file of the certificates a TLS server's must chain to (relative to the task file).
  package var certificateAuthority: String?
  /// The deadline of each exchange with the server.
  package var timeout: Duration?
  /// Where the address is written (or the section, without one).
  package var location: SourceLocation
}
