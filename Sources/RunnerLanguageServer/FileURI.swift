import RunnerBasics

/// `file://` URIs (RFC 8089) and paths: what editors name documents by.
enum FileURI {
  /// The path of a `file:` URI, percent-decoded; nil for another scheme.
  static func path(_ uri: String) -> String? {
    guard uri.hasPrefix("file://") else { return nil }
    var rest = Substring(uri.dropFirst("file://".count))
    // `file://host/path`: only the local host is ours.
    if !rest.hasPrefix("/") {
      guard let slash = rest.firstIndex(of: "/"), rest[..<slash] == "localhost" else { return nil }
      rest = rest[slash...]
    }
    return normalized(PercentEncoding.decoded(rest))
  }

  /// The URI of an absolute `path`, with what a URI may not hold percent-encoded.
  static func uri(_ path: String) -> String {
    var out = "file://"
    for byte in normalized(path).utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"),
        UInt8(ascii: "."), UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let hex = String(byte, radix: 16, uppercase: true)
        out += "%" + (hex.count == 1 ? "0" + hex : hex)
      }
    }
    return out
  }

  static func normalized(_ path: String) -> String { FilePath.lexical(path) }
}
