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
  /// `user:password` from `scheme://user:password@host`, percent-decoded: sent as HTTP Basic
  /// authorization, never printed.
  package var credentials: String?
  /// What follows `?` in an HTTP address (a signed URL's token), sent with every request and
  /// never printed.
  package var query: String

  package init(
    scheme: Scheme, host: String, port: Int, path: String = "", credentials: String? = nil, query: String = ""
  ) {
    self.scheme = scheme
    self.host = host
    self.port = port
    self.path = path
    self.credentials = credentials
    self.query = query
  }

  /// The parts of the address that are secrets: its password and its query.
  /// A user alone (`https://TOKEN@host`) is a token: secret too.
  package var secrets: [String] {
    let password = credentials.map { $0.contains(":") ? String($0.drop { $0 != ":" }.dropFirst()) : $0 }
    return [password ?? "", query].filter { !$0.isEmpty }
  }

  /// The `Authorization` header the credentials make, if there are any.
  package var authorization: (name: String, value: String)? {
    credentials.map { ("Authorization", "Basic " + Self.base64(Array($0.utf8))) }
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
    if rest.contains("#") { throw Invalid(text, "a '#fragment' means nothing to a server") }
    var query = ""
    if let mark = rest.firstIndex(of: "?") {
      guard !scheme.isGRPC else { throw Invalid(text, "a gRPC address takes no '?query'") }
      query = String(rest[rest.index(after: mark)...])
      rest = rest[..<mark]
    }
    var path = ""
    if let slash = rest.firstIndex(of: "/") {
      path = String(rest[rest.index(after: slash)...]).trimmingSlashes()
      rest = rest[..<slash]
    }
    var credentials: String?
    if let at = rest.lastIndex(of: "@") {
      guard let decoded = Self.percentDecoded(rest[..<at]) else {
        throw Invalid(text, "the user and password before '@' have a bad %-escape")
      }
      credentials = decoded
      rest = rest[rest.index(after: at)...]
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
    self.init(scheme: scheme, host: host, port: port, path: path, credentials: credentials, query: query)
  }

  /// RFC 4648 base64, padded.
  static func base64(_ bytes: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    for start in stride(from: 0, to: bytes.count, by: 3) {
      let chunk = bytes[start..<min(start + 3, bytes.count)]
      let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
      for position in 0..<4 {
        out.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : UInt8(ascii: "="))
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// `%XX` escapes decoded; nil for a bad escape or bytes that are not UTF-8.
  static func percentDecoded(_ text: Substring) -> String? {
    var bytes: [UInt8] = []
    var index = text.utf8.startIndex
    while index < text.utf8.endIndex {
      let byte = text.utf8[index]
      index = text.utf8.index(after: index)
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard text.utf8.distance(from: index, to: text.utf8.endIndex) >= 2 else { return nil }
      let next = text.utf8.index(index, offsetBy: 2)
      guard let value = UInt8(String(text.utf8[index..<next])!, radix: 16) else { return nil }
      bytes.append(value)
      index = next
    }
    return String(validating: bytes, as: UTF8.self)
  }

  package var description: String {
    let address = host.contains(":") ? "[\(host)]" : host
    return "\(scheme.rawValue)://\(address):\(port)" + (path.isEmpty ? "" : "/\(path)")
  }

  /// What is wrong with an endpoint as written.
  package struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
    package var text: String
    package var reason: String

    /// `text` is said with what may be secret in it left out: a password before `@`, a query.
    init(_ text: String, _ reason: String) {
      var shown = Substring(text)
      if let mark = shown.firstIndex(of: "?") { shown = shown[..<mark] + "?***" }
      // What comes before an '@' in the address part, scheme or not, may be a password.
      let start = shown.firstRange(of: "://")?.upperBound ?? shown.startIndex
      let end = shown[start...].firstIndex(of: "/") ?? shown.endIndex
      if let at = shown[start..<end].lastIndex(of: "@") { shown = shown[..<start] + "***" + shown[at...] }
      self.text = String(shown)
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
