/// The proxy a URL is fetched through, from the variables curl and most tools read:
/// `http_proxy` for `http://`, `https_proxy` for `https://`, `all_proxy` for either (lower case
/// first, then upper case), and `no_proxy` (comma-separated host suffixes, `*` for every host).
struct HTTPProxy: Hashable, Sendable {
  var host: String
  var port: Int
  /// `user:password` written in the proxy's address (percent-decoded), sent as basic
  /// authorization.
  var credentials: Credentials?

  struct Credentials: Hashable, Sendable {
    var user: String
    var password: String
  }

  /// The proxy for `url` under `environment`; nil to connect directly.
  static func forURL(_ url: String, environment: [String: String]) -> HTTPProxy? {
    guard let target = Target(url) else { return nil }
    if let excluded = value("no_proxy", in: environment), excludes(excluded, host: target.host) { return nil }
    let address =
      value(target.secure ? "https_proxy" : "http_proxy", in: environment) ?? value("all_proxy", in: environment)
    return address.flatMap(HTTPProxy.init(address:))
  }

  /// `[http://][user:password@]host[:port][/]`; the port is 1080 when not written, as curl's.
  init?(address: String) {
    var rest = Substring(address)
    if let scheme = rest.range(of: "://") {
      guard rest[..<scheme.lowerBound].lowercased() == "http" else { return nil }
      rest = rest[scheme.upperBound...]
    }
    if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
    if let at = rest.lastIndex(of: "@") {
      let written = rest[..<at]
      let colon = written.firstIndex(of: ":") ?? written.endIndex
      credentials = Credentials(
        user: Self.percentDecoded(written[..<colon]),
        password: Self.percentDecoded(written[colon...].dropFirst()))
      rest = rest[rest.index(after: at)...]
    }
    port = 1080
    if let colon = rest.lastIndex(of: ":"), !rest.hasSuffix("]") {
      guard let written = Int(rest[rest.index(after: colon)...]), (1...65535).contains(written) else { return nil }
      port = written
      rest = rest[..<colon]
    }
    guard !rest.isEmpty else { return nil }
    host = String(rest)
  }

  static func percentDecoded(_ text: Substring) -> String {
    var bytes: [UInt8] = []
    var index = text.utf8.startIndex
    let utf8 = text.utf8
    while index != utf8.endIndex {
      let byte = utf8[index]
      if byte == UInt8(ascii: "%"), let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
        let low = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), low != utf8.endIndex,
        let value = UInt8(String(decoding: utf8[high...low], as: UTF8.self), radix: 16)
      {
        bytes.append(value)
        index = utf8.index(after: low)
      } else {
        bytes.append(byte)
        index = utf8.index(after: index)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func value(_ name: String, in environment: [String: String]) -> String? {
    for key in [name, name.uppercased()] {
      if let value = environment[key], !value.isEmpty { return value }
    }
    return nil
  }

  private static func excludes(_ list: String, host: String) -> Bool {
    let host = host.lowercased()
    return list.split(separator: ",").contains { entry in
      var suffix = entry.trimmingCharacters(in: " ").lowercased()
      if suffix == "*" { return true }
      if suffix.hasPrefix(".") { suffix.removeFirst() }
      return !suffix.isEmpty && (host == suffix || host.hasSuffix("." + suffix))
    }
  }

  /// A URL's scheme and host.
  struct Target {
    var secure: Bool
    var host: String

    init?(_ url: String) {
      let lowered = url.lowercased()
      if lowered.hasPrefix("http://") {
        secure = false
      } else if lowered.hasPrefix("https://") {
        secure = true
      } else {
        return nil
      }
      var rest = lowered.drop { $0 != "/" }.dropFirst(2)
      rest = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
      if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
      if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
        rest = rest[rest.index(after: rest.startIndex)..<close]
      } else if let colon = rest.firstIndex(of: ":") {
        rest = rest[..<colon]
      }
      host = String(rest)
    }
  }
}

extension StringProtocol {
  fileprivate func trimmingCharacters(in set: Character) -> String {
    String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
  }
}
