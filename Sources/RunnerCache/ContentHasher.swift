import Crypto

/// SHA-256 over typed, length-prefixed fields: the one place that imports swift-crypto.
///
/// Every field is prefixed with its length, so `["ab", "c"]` and `["a", "bc"]` hash
/// differently. Digests are lower-case hex, the form the state file and cache keys use
/// (and Bazel's remote APIs expect).
///
/// Small fields are gathered in a buffer and handed to SHA-256 in blocks: a fingerprint is
/// dozens of short fields, and each `update` call costs more than hashing a short field.
package struct ContentHasher {
  private var hasher = SHA256()
  private var pending: [UInt8] = []

  static let blockSize = 4096

  init() {
    pending.reserveCapacity(256)
  }

  /// Adds a text field.
  mutating func add(_ text: String) {
    var text = text
    text.withUTF8 { add(bytes: UnsafeRawBufferPointer($0)) }
  }

  /// Adds an integer field.
  mutating func add(_ value: Int64) {
    var little = value.littleEndian
    withUnsafeBytes(of: &little) { stream($0) }
  }

  /// Adds a byte field (length-prefixed).
  mutating func add(bytes: UnsafeRawBufferPointer) {
    add(Int64(bytes.count))
    stream(bytes)
  }

  /// Adds bytes without a length prefix (for streaming a file's content).
  mutating func stream(_ bytes: UnsafeRawBufferPointer) {
    if pending.count + bytes.count <= Self.blockSize {
      pending.append(contentsOf: bytes)
      return
    }
    flush()
    if bytes.count < Self.blockSize {
      pending.append(contentsOf: bytes)
    } else {
      hasher.update(bufferPointer: bytes)
    }
  }

  private mutating func flush() {
    guard !pending.isEmpty else { return }
    pending.withUnsafeBytes { hasher.update(bufferPointer: $0) }
    pending.removeAll(keepingCapacity: true)
  }

  private func digest() -> SHA256.Digest {
    var hasher = hasher
    pending.withUnsafeBytes { hasher.update(bufferPointer: $0) }
    return hasher.finalize()
  }

  /// The digest as 64 lower-case hex digits.
  func finalize() -> String {
    digest().withUnsafeBytes { Self.hex($0) }
  }

  /// The digest's raw 32 bytes.
  func finalizeBytes() -> [UInt8] {
    Array(digest())
  }

  /// SHA-256 of `bytes` themselves (no length prefix): a REAPI blob's digest.
  package static func sha256Hex(_ bytes: [UInt8]) -> String {
    SHA256.hash(data: bytes).withUnsafeBytes { hex($0) }
  }

  package static func hex(_ bytes: [UInt8]) -> String {
    bytes.withUnsafeBytes { hex($0) }
  }

  /// Lower-case hex, written straight into the string's storage (digests are made by the
  /// thousand in a run where everything is up to date).
  static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
    String(unsafeUninitializedCapacity: bytes.count * 2) { out in
      for (index, byte) in bytes.enumerated() {
        out[2 * index] = hexDigit(byte >> 4)
        out[2 * index + 1] = hexDigit(byte & 15)
      }
      return bytes.count * 2
    }
  }

  private static func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
  }

  /// SHA-256 of a byte buffer, as hex.
  package static func digest(_ bytes: UnsafeRawBufferPointer) -> String {
    var hasher = ContentHasher()
    hasher.stream(bytes)
    return hasher.finalize()
  }

  /// The raw SHA-256 of a byte buffer (the integrity trailer of state and cache files).
  static func rawDigest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    var hasher = ContentHasher()
    hasher.stream(bytes)
    return hasher.finalizeBytes()
  }
}
