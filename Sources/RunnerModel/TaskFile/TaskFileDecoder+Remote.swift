extension TaskFileDecoder {
  static let remoteKeys = ["cache", "exec", "jobs", "upload", "ca", "timeout", "trust"]

  /// `remote:`: the remote cache and executor a run uses unless the command line names them. Headers (tokens)
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
      case "exec":
        guard let text = reader.string(entry.value, what: what) else { continue }
        guard text.hasPrefix("grpc://") || text.hasPrefix("grpcs://") else {
          reader.fail(
            .invalidValue(what: what, reason: "must be a grpc:// or grpcs:// address, found '\(text)'"),
            at: entry.value)
          continue
        }
        settings.execute = text
        settings.executeLocation = entry.value.location
      case "jobs": settings.jobs = reader.integer(entry.value, what: what, range: 1...100_000)
      case "upload": settings.upload = reader.boolean(entry.value, what: what)
      case "ca": settings.certificateAuthority = reader.string(entry.value, what: what)
      case "trust":
        guard let files = reader.strings(entry.value, what: what, expected: "a list of public key files")?.map(\.0)
        else { continue }
        guard !files.isEmpty, !files.contains(where: \.isEmpty) else {
          let reason = files.isEmpty ? "must name at least one public key file" : "names an empty path"
          reader.fail(.invalidValue(what: what, reason: reason), at: entry.value)
          continue
        }
        settings.trust = files
        settings.trustLocation = entry.value.location
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
  /// The executor's address (`grpc://host:port[/instance]`), and where it is written.
  package var execute: String?
  package var executeLocation: SourceLocation?
  /// The most tasks executing remotely at once.
  package var jobs: Int?
  /// false: read from the cache, never store in it.
  package var upload: Bool?
  /// A PEM file of the certificates a TLS server's must chain to (relative to the task file).
  package var certificateAuthority: String?
  /// The deadline of each exchange with the server.
  package var timeout: Duration?
  /// PEM files of the Ed25519 public keys whose signed results are restored (relative to the
  /// task file), and where the list is written.
  package var trust: [String]?
  package var trustLocation: SourceLocation?
  /// Where the address is written (or the section, without one).
  package var location: SourceLocation
}
