import Foundation
import REAPI
import RunnerCache
import Testing

@testable import RunnerRemote

/// Signatures on remote cache results: keys as openssl writes them, signatures openssl
/// verifies, and the check a trusted reader makes, on results that went through the servers.
@Suite final class CacheSigningTests {
  /// A directory with `a.pem`/`a.pub` and `b.pem`/`b.pub`, made by openssl.
  let directory: URL

  deinit { try? FileManager.default.removeItem(at: directory) }

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-keys-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    _ = try shell(
      "for k in a b; do openssl genpkey -algorithm ed25519 -out $k.pem && openssl pkey -in $k.pem -pubout -out $k.pub; done"
    )
  }

  @discardableResult
  func shell(_ script: String) throws -> String {
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/sh")
    shell.arguments = ["-c", script]
    shell.currentDirectoryURL = directory
    let out = Pipe()
    shell.standardOutput = out
    try shell.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    shell.waitUntilExit()
    #expect(shell.terminationStatus == 0, "\(script)")
    return text
  }

  func bytes(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
  }

  func signing(_ name: String) throws -> CacheSigningKey { try CacheSigningKey(pem: bytes("\(name).pem"), path: name) }
  func trust(_ names: String...) throws -> CacheTrust { try CacheTrust(names.map { ($0, try bytes("\($0).pub")) }) }

  /// A result as runner stores it: two outputs and a stdout digest.
  static func result() -> ActionResult {
    var result = ActionResult()
    for (path, text) in [("out/b.txt", "bee"), ("out/a.bin", "ay")] {
      var file = Build_Bazel_Remote_Execution_V2_OutputFile()
      file.path = path
      file.digest = Digest(of: Array(text.utf8))
      result.outputFiles.append(file)
    }
    result.stdoutDigest = Digest(of: Array("made\n".utf8))
    return result
  }

  static let action = Digest(of: Array("the task's action".utf8))

  @Test func theKeyIdAndTheSignatureAreWhatOpensslComputesAndChecks() throws {
    let key = try signing("a")
    #expect(
      key.id
        == (try shell("openssl pkey -in a.pem -pubout -outform DER | sha256sum | cut -c1-16")).trimmingCharacters(
          in: .whitespacesAndNewlines))
    #expect(try trust("a").ids == [key.id])
    var result = Self.result()
    try key.sign(&result, key: Self.action)
    let (keyID, signature) = try #require(CacheSigning.signatures(of: result).first)
    #expect(ContentHasher.hex(keyID) == key.id)
    let signed = try #require(CacheSigning.message(result, key: Self.action))
    try Data(signed).write(to: directory.appendingPathComponent("message"))
    try Data(signature).write(to: directory.appendingPathComponent("signature"))
    let verified = try shell("openssl pkeyutl -verify -pubin -inkey a.pub -rawin -in message -sigfile signature")
    #expect(verified.contains("Signature Verified Successfully"), "\(verified)")
    // The message names the task's key and the canonical result's digest.
    let message = String(decoding: signed, as: UTF8.self)
    #expect(message.hasPrefix("runner-cache-v1\0\(Self.action.hash)/\(Self.action.sizeBytes)\0"))
  }

  @Test func aTrustedReaderTakesOnlyWhatATrustedKeySigned() throws {
    var signedByA = Self.result()
    try signing("a").sign(&signedByA, key: Self.action)
    var signedByB = Self.result()
    try signing("b").sign(&signedByB, key: Self.action)
    let idA = try signing("a").id
    let idB = try signing("b").id
    #expect(try trust("a").check(signedByA, key: Self.action) == .trusted(keyID: idA))
    // Two keys at once: rotation.
    #expect(try trust("a", "b").check(signedByB, key: Self.action) == .trusted(keyID: idB))
    #expect(try trust("a").check(signedByB, key: Self.action) == .untrusted(keyID: idB))
    #expect(try trust("a").check(Self.result(), key: Self.action) == .untrusted(keyID: nil))
    // Signed for another task's key: not this one's.
    #expect(try trust("a").check(signedByA, key: Digest(of: [1])) == .altered(keyID: idA))
    // Any part the signature covers changed: an output's digest, its executable bit, a path,
    // the log's digest, an output added.
    let changes: [(inout ActionResult) -> Void] = [
      { $0.outputFiles[0].digest = Digest(of: Array("evil".utf8)) },
      { $0.outputFiles[1].isExecutable = true },
      { $0.outputFiles[0].path = "out/c.txt" },
      { $0.stdoutDigest = Digest(of: Array("other\n".utf8)) },
      { $0.outputFiles.append($0.outputFiles[0]) },
    ]
    for change in changes {
      var tampered = signedByA
      change(&tampered)
      #expect(try trust("a").check(tampered, key: Self.action) == .altered(keyID: idA))
      #expect(try trust("b").check(tampered, key: Self.action) == .untrusted(keyID: idA))
    }
    // What a server may add is not covered, and does not break the signature.
    var served = signedByA
    served.stdoutRaw = Data("made\n".utf8)
    served.executionMetadata.worker = "a server"
    served.outputFiles.reverse()
    #expect(try trust("a").check(served, key: Self.action) == .trusted(keyID: idA))
  }

  @Test func keysThatAreNotEd25519AreRefusedWithoutShowingThem() throws {
    try shell("openssl genpkey -algorithm x25519 -out x.pem && openssl pkey -in x.pem -pubout -out x.pub")
    try shell("openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:P-256 -out ec.pem")
    for name in ["x.pem", "ec.pem", "a.pub"] {
      do {
        _ = try CacheSigningKey(pem: bytes(name), path: name)
        Issue.record("\(name) was taken as a signing key")
      } catch {
        #expect(
          "\(error)"
            == "\(name) is not an Ed25519 private key in PEM, as `openssl genpkey -algorithm ed25519` writes it")
      }
    }
    #expect(throws: CacheKeyError.self) { try CacheTrust([("x.pub", try bytes("x.pub"))]) }
    #expect(throws: CacheKeyError.self) { try CacheTrust([("a.pem", try bytes("a.pem"))]) }
    #expect(throws: CacheKeyError.self) { try CacheTrust([]) }
    // One file of two keys (with Windows line ends) trusts both; one of a key and a non-key, none.
    let both =
      try bytes("a.pub")
      + Array(String(decoding: try bytes("b.pub"), as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8)
    #expect(try CacheTrust([("both.pub", both)]).ids == [try signing("a").id, try signing("b").id])
    #expect(throws: CacheKeyError.self) { try CacheTrust([("mixed.pub", try bytes("a.pub") + bytes("x.pub"))]) }
  }

  /// The servers keep the signature as stored; one byte of the result changed through the
  /// same server makes it a result no trusted reader takes.
  @Test(
    .enabled(
      if: TestServers.anyGRPC || TestServers.address("RUNNER_TEST_HTTP_CACHE") != nil,
      "no remote servers named (.ci/remote-servers.sh start DIR)"))
  func aSignatureSurvivesEachServerAndATamperedResultIsRefused() async throws {
    var servers: [any BlobServer] = []
    for variable in TestServers.grpc {
      if let address = TestServers.address(variable) {
        servers.append(try REAPIConnection(RemoteEndpoint(parsing: address), timeout: REAPIConnectionTests.deadline))
      }
    }
    if let address = TestServers.address("RUNNER_TEST_HTTP_CACHE") {
      servers.append(try HTTPCache(RemoteEndpoint(parsing: address), timeout: REAPIConnectionTests.deadline))
    }
    let trust = try trust("a")
    for server in servers {
      let action = Digest(of: Array(UUID().uuidString.utf8))
      var result = Self.result()
      try signing("a").sign(&result, key: action)
      // The blobs first: a server may drop a result that names blobs it lacks.
      try await server.putBlobs(["bee", "ay", "made\n"].map { Array($0.utf8) })
      try await server.storeActionResult(result, for: action)
      let served = try #require(try await server.actionResult(for: action))
      #expect(CacheSigning.signatures(of: served).count == 1)
      #expect(trust.check(served, key: action) == .trusted(keyID: try signing("a").id))
      var tampered = served
      tampered.outputFiles[0].isExecutable.toggle()
      try await server.storeActionResult(tampered, for: action)
      let changed = try #require(try await server.actionResult(for: action))
      #expect(trust.check(changed, key: action) == .altered(keyID: try signing("a").id))
      await server.close()
    }
  }
}
