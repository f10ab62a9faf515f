import Crypto
import Foundation
import REAPI
import RunnerCache
import RunnerRemoteAPI
import SwiftProtobuf

/// Ed25519 signatures on the results runner stores in a remote cache, and their check.
///
/// A writer holding a signing key signs, for each result it stores, the message
/// `runner-cache-v1 NUL <task key hash>/<size> NUL <result hash>/<size>`: the task's key (the
/// action's digest) and the digest of the result's canonical form — its output files (path,
/// digest, executable bit, sorted by path), its stdout and stderr digests and its exit code,
/// rebuilt by the reader, so that what a server adds (inlined logs, metadata) neither breaks
/// nor escapes the signature. The signature travels inside the entry, as an `Any` in the
/// result's `execution_metadata.auxiliary_metadata` (REAPI and the HTTP protocol store the
/// same `ActionResult`): a `ResultSignature { bytes key_id = 1; bytes signature = 2; }`.
package enum CacheSigning {
  static let typeURL = "type.googleapis.com/runner.cache.v1.ResultSignature"
  static let domain = Array("runner-cache-v1\0".utf8)
  /// DER before the 32-byte seed of a PKCS#8 Ed25519 private key (`openssl genpkey -algorithm ed25519`).
  static let privatePrefix: [UInt8] = [
    0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
  ]
  /// DER before the 32-byte key of an Ed25519 SubjectPublicKeyInfo (`openssl pkey -pubout`).
  static let publicPrefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]

  /// A key's id: the first 8 bytes of the SHA-256 of its SubjectPublicKeyInfo, in hex
  /// (`openssl pkey -pubin -in KEY.pub -outform DER | sha256sum | cut -c1-16`).
  static func id(of publicKey: Curve25519.Signing.PublicKey) -> [UInt8] {
    Array(SHA256.hash(data: publicPrefix + Array(publicKey.rawRepresentation)).prefix(8))
  }

  /// What is signed for `result` stored as `key`'s; nil when its canonical form does not encode.
  static func message(_ result: ActionResult, key: Digest) -> [UInt8]? {
    guard let canonical = canonicalDigest(result) else { return nil }
    return domain + Array("\(key.hash)/\(key.sizeBytes)\0\(canonical.hash)/\(canonical.sizeBytes)".utf8)
  }

  /// The digest of the result's canonical form (see the type's comment); nil when it does not
  /// encode — never a digest of nothing, which every such result would share.
  static func canonicalDigest(_ result: ActionResult) -> Digest? {
    var canonical = ActionResult()
    canonical.outputFiles = result.outputFiles.map { file in
      var kept = Build_Bazel_Remote_Execution_V2_OutputFile()
      kept.path = file.path
      kept.digest = file.digest
      kept.isExecutable = file.isExecutable
      return kept
    }.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    if result.stdoutDigest.sizeBytes > 0 { canonical.stdoutDigest = result.stdoutDigest }
    if result.stderrDigest.sizeBytes > 0 { canonical.stderrDigest = result.stderrDigest }
    canonical.exitCode = result.exitCode
    // Proto3 without maps or unknown fields: field order, the same bytes for the same result.
    guard let bytes: [UInt8] = try? canonical.serializedBytes() else { return nil }
    return Digest(of: bytes)
  }

  /// The signatures a result carries: each key id with its signature.
  static func signatures(of result: ActionResult) -> [(keyID: [UInt8], signature: [UInt8])] {
    result.executionMetadata.auxiliaryMetadata.compactMap { any in
      guard any.typeURL == typeURL else { return nil }
      let bytes = [UInt8](any.value)
      guard bytes.count == 76, bytes[0] == 0x0A, bytes[1] == 8, bytes[10] == 0x12, bytes[11] == 64 else { return nil }
      return (Array(bytes[2..<10]), Array(bytes[12...]))
    }
  }

  /// The base64 body of a PEM block labelled `label`, decoded.
  static func pemBody(_ text: [UInt8], label: String) -> [UInt8]? {
    let blocks = pemBodies(text, label: label)
    return blocks.count == 1 ? blocks[0] : nil
  }

  /// The usual mistake a key file that is not the `wanted` block shows, as a clause to add to
  /// its error: a key under a passphrase, or the private half where the public one belongs.
  static func mistake(in pem: [UInt8], wanted: String) -> String {
    if !pemBodies(pem, label: "ENCRYPTED PRIVATE KEY").isEmpty {
      return " (it holds an encrypted private key: runner takes no passphrase)"
    }
    if wanted == "PUBLIC KEY", !pemBodies(pem, label: "PRIVATE KEY").isEmpty {
      return " (it holds a private key: give its public half, `openssl pkey -in KEY -pubout`)"
    }
    return ""
  }

  /// Every PEM block labelled `label`, decoded (nil for one that is not base64).
  static func pemBodies(_ text: [UInt8], label: String) -> [[UInt8]?] {
    let pem = String(decoding: text, as: UTF8.self)
    let begin = "-----BEGIN \(label)-----"
    let end = "-----END \(label)-----"
    var bodies: [[UInt8]?] = []
    var rest = pem.startIndex..<pem.endIndex
    while let start = pem.range(of: begin, range: rest),
      let stop = pem.range(of: end, range: start.upperBound..<pem.endIndex)
    {
      let body = pem[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
      bodies.append(Data(base64Encoded: String(body)).map { [UInt8]($0) })
      rest = stop.upperBound..<pem.endIndex
    }
    return bodies
  }
}

/// A key file that is not what it must be. The message names the file, never its bytes.
package struct CacheKeyError: Error, Sendable, CustomStringConvertible {
  package var description: String

  package init(description: String) { self.description = description }
}

/// The key a writer signs its results with: an Ed25519 private key in PEM.
package struct CacheSigningKey: Sendable {
  let key: Curve25519.Signing.PrivateKey
  let keyID: [UInt8]
  /// The key's id in hex, as warnings name it.
  package var id: String { ContentHasher.hex(keyID) }

  /// - Parameter pem: the file's bytes, as `openssl genpkey -algorithm ed25519` writes them.
  package init(pem: [UInt8], path: String) throws(CacheKeyError) {
    guard let der = CacheSigning.pemBody(pem, label: "PRIVATE KEY"), der.count == 48,
      Array(der.prefix(16)) == CacheSigning.privatePrefix,
      let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: der[16...])
    else {
      throw CacheKeyError(
        description: "\(path) is not an Ed25519 private key in PEM, as `openssl genpkey -algorithm ed25519` writes it"
          + CacheSigning.mistake(in: pem, wanted: "PRIVATE KEY"))
    }
    self.key = key
    keyID = CacheSigning.id(of: key.publicKey)
  }

  /// `result` signed as `key`'s: its signature added to its auxiliary metadata.
  func sign(_ result: inout ActionResult, key action: Digest) throws(RemoteCacheError) {
    guard let message = CacheSigning.message(result, key: action) else {
      throw RemoteCacheError("cannot sign the result: it does not encode")
    }
    let signature: Data
    do {
      signature = try key.signature(for: message)
    } catch {
      throw RemoteCacheError("cannot sign the result: \(error)")
    }
    var any = Google_Protobuf_Any()
    any.typeURL = CacheSigning.typeURL
    any.value = Data([0x0A, 8] + keyID + [0x12, 64] + [UInt8](signature))
    result.executionMetadata.auxiliaryMetadata.append(any)
  }
}

/// The keys whose results a reader restores: Ed25519 public keys in PEM.
package struct CacheTrust: Sendable {
  struct Key: Sendable {
    let key: Curve25519.Signing.PublicKey
    let id: [UInt8]
  }

  let keys: [Key]

  /// - Parameter files: each file's path, as named, and its bytes (as `openssl pkey -pubout`
  ///   writes them; a file may hold several keys, one block each).
  package init(_ files: [(path: String, pem: [UInt8])]) throws(CacheKeyError) {
    var keys: [Key] = []
    for (path, pem) in files {
      let blocks = CacheSigning.pemBodies(pem, label: "PUBLIC KEY")
      let found = blocks.compactMap { block -> Curve25519.Signing.PublicKey? in
        guard let der = block, der.count == 44, Array(der.prefix(12)) == CacheSigning.publicPrefix else { return nil }
        return try? Curve25519.Signing.PublicKey(rawRepresentation: der[12...])
      }
      guard !found.isEmpty, found.count == blocks.count else {
        throw CacheKeyError(
          description: "\(path) is not an Ed25519 public key in PEM, as `openssl pkey -pubout` writes it"
            + CacheSigning.mistake(in: pem, wanted: "PUBLIC KEY"))
      }
      keys += found.map { Key(key: $0, id: CacheSigning.id(of: $0)) }
    }
    guard !keys.isEmpty else { throw CacheKeyError(description: "no public key file named") }
    self.keys = keys
  }

  /// Only the signing key's own results: what a writer restores when no keys are named, so
  /// that it never signs a result built on one it cannot vouch for.
  package init(signing: CacheSigningKey) {
    keys = [Key(key: signing.key.publicKey, id: signing.keyID)]
  }

  /// The trusted keys' ids, in hex.
  package var ids: [String] { keys.map { ContentHasher.hex($0.id) } }

  /// Whether results `signing` signs are trusted here.
  package func trusts(_ signing: CacheSigningKey) -> Bool { keys.contains { $0.id == signing.keyID } }

  /// Whether `result`, stored as `key`'s, is signed by a trusted key; else why not.
  enum Verdict: Equatable {
    case trusted(keyID: String)
    /// Signed by no trusted key: the id of the key that signed it, nil when unsigned.
    case untrusted(keyID: String?)
    /// Signed by a trusted key, but not as it is now: changed after it was signed.
    case altered(keyID: String)
  }

  func check(_ result: ActionResult, key action: Digest) -> Verdict {
    let signatures = CacheSigning.signatures(of: result)
    guard !signatures.isEmpty else { return .untrusted(keyID: nil) }
    guard let message = CacheSigning.message(result, key: action) else {
      return .untrusted(keyID: ContentHasher.hex(signatures[0].keyID))
    }
    var altered: String?
    for (keyID, signature) in signatures {
      for trusted in keys where trusted.id == keyID {
        if trusted.key.isValidSignature(signature, for: message) { return .trusted(keyID: ContentHasher.hex(keyID)) }
        altered = ContentHasher.hex(keyID)
      }
    }
    if let altered { return .altered(keyID: altered) }
    return .untrusted(keyID: ContentHasher.hex(signatures[0].keyID))
  }
}
