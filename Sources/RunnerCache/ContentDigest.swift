/// A content's name, as REAPI names a blob: its SHA-256 in lowercase hex and its size.
package struct ContentDigest: Sendable, Hashable {
  package var hash: String
  package var size: Int64

  package init(hash: String, size: Int64) {
    self.hash = hash
    self.size = size
  }

  package init(of bytes: [UInt8]) {
    self.init(hash: ContentHasher.sha256Hex(bytes), size: Int64(bytes.count))
  }

  /// As a REAPI `Digest` message.
  package var encoded: [UInt8] {
    var out = ProtobufWriter()
    out.string(1, hash)
    out.varint(2, UInt64(bitPattern: size))
    return out.bytes
  }
}
