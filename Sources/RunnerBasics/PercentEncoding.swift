/// `%XX` escapes (RFC 3986), as URIs and OpenTelemetry's header lists write bytes.
package enum PercentEncoding {
  /// `text` with each `%XX` replaced by its byte; a `%` not followed by two hex digits stays.
  package static func decoded(_ text: some StringProtocol) -> String {
    var bytes: [UInt8] = []
    var rest = Array(text.utf8)[...]
    while let byte = rest.first {
      rest = rest.dropFirst()
      if byte == UInt8(ascii: "%"), rest.count >= 2,
        let value = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16)
      {
        bytes.append(value)
        rest = rest.dropFirst(2)
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
