/// Where a remote cache or executor is, as `--remote-cache` and `--remote-exec` name it:
/// `grpc://host:port[/instance]` and `grpcs://…` (REAPI v2), `http://host:port/prefix` and
/// `https://…` (Bazel's HTTP cache layout).
package struct RemoteEndpoint: Sendable, Equatable, CustomStringConvertible {
  package enum Scheme: String, Sendable {
    case grpc, grpcs, http, https

    package var isGRPC: Bool { self == .grpc || self == .grpcs }
    package var usesTLS: Bool { self == .grpcs || self == .https }
    var defaultPort: Int {
      switch self {
      case .grpc, .grpcs: return 443
      case .http: return 80
      case .https: return 443
      }
    }
  }

  package var scheme: Scheme
  package var host: String
  package var port: Int
  /// The REAPI instance name (gRPC), or the path prefix the cache's `/ac/` and `/cas/` sit
  /// under (HTTP); no leading or trailing slash.
  package var path: String

  package init(scheme: Scheme, host: String, port: Int, path: String = "") {
    self.scheme = scheme
    self.host = host
    self.port = port
    self.path = path
  }

  /// - Throws: `RemoteEndpoint.Invalid` saying what is wrong with `text`.
  package init(parsing text: String) throws(Invalid) {
    guard let separator = text.firstRange(of: "://") else {
      throw Invalid(text, "needs a scheme: grpc://, grpcs://, http:// or https://")
    }
    guard let scheme = Scheme(rawValue: String(text[..<separator.lowerBound]).lowercased()) else {
      throw Invalid(text, "unknown scheme '\(text[..<separator.lowerBound])' (grpc, grpcs, http or https)")
    }
    var rest = text[separator.upperBound...]
    var path = ""
    if let slash = rest.firstIndex(of: "/") {
      path = String(rest[rest.index(after: slash)...]).trimmingSlashes()
      rest = rest[..<slash]
    }
    var host = String(rest)
    var port = scheme.defaultPort
    if host.hasPrefix("[") {
      // [::1]:8080
      guard let close = host.firstIndex(of: "]") else { throw Invalid(text, "an IPv6 address needs its ']'") }
      let after = host[host.index(after: close)...]
      if after.hasPrefix(":") {
        guard let number = Int(after.dropFirst()), (1...65535).contains(number) else {
          throw Invalid(text, "the port must be a number from 1 to 65535")
        }
        port = number
      } else if !after.isEmpty {
        throw Invalid(text, "unexpected '\(after)' after the address")
      }
      host = String(host[host.index(after: host.startIndex)..<close])
    } else if let colon = host.lastIndex(of: ":") {
      guard let number = Int(host[host.index(after: colon)...]), (1...65535).contains(number) else {
        throw Invalid(text, "the port must be a number from 1 to 65535")
      }
      port = number
      host = String(host[..<colon])
    }
    guard !host.isEmpty else { throw Invalid(text, "names no host") }
    self.init(scheme: scheme, host: host, port: port, path: path)
  }

  package var description: String {
    let address = host.contains(":") ? "[\(host)]" : host
    return "\(scheme.rawValue)://\(address):\(port)" + (path.isEmpty ? "" : "/\(path)")
  }

  /// What is wrong with an endpoint as written.
  package struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
    package var text: String
    package var reason: String

    init(_ text: String, _ reason: String) {
      self.text = text
      self.reason = reason
    }

    package var description: String { "invalid remote address '\(text)': \(reason)" }
  }
}

extension String {
  fileprivate func trimmingSlashes() -> String {
    var text = Substring(self)
    while text.hasPrefix("/") { text = text.dropFirst() }
    while text.hasSuffix("/") { text = text.dropLast() }
    return String(text)
  }
}
