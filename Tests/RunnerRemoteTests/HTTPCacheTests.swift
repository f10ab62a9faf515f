import REAPI
import Testing

@testable import RunnerRemote

/// Bazel's HTTP cache layout against nginx with WebDAV, plain and over TLS with a certificate
/// of the test CA (`.ci/remote-servers.sh`).
@Suite(
  .enabled(
    if: TestServers.address("RUNNER_TEST_HTTP_CACHE") != nil,
    "no HTTP cache named (.ci/remote-servers.sh start DIR)"))
struct HTTPCacheTests {
  /// As the REAPI tests: a loaded test run holds the client's threads for seconds.
  static let deadline = Duration.seconds(120)

  /// The plain cache, and the TLS one trusting the test CA.
  func caches() throws -> [HTTPCache] {
    var caches = [
      try HTTPCache(RemoteEndpoint(parsing: TestServers.address("RUNNER_TEST_HTTP_CACHE")!), timeout: Self.deadline)
    ]
    if let https = TestServers.address("RUNNER_TEST_HTTPS_CACHE") {
      caches.append(
        try HTTPCache(
          RemoteEndpoint(parsing: https), trustRoots: TestServers.address("RUNNER_TEST_HTTPS_CA"),
          timeout: Self.deadline))
    }
    return caches
  }

  @Test func blobsAndActionResultsGoInAndComeBack() async throws {
    for cache in try caches() {
      // Fresh bytes for each cache: the plain and the TLS one serve the same files.
      let blob = (0..<100_000).map { _ in UInt8.random(in: 0...255) }
      let action = Digest(of: blob + [1])
      var result = Build_Bazel_Remote_Execution_V2_ActionResult()
      result.exitCode = 0
      result.stdoutDigest = Digest(of: blob)
      #expect(try await cache.blob(Digest(of: blob)) == nil, "\(cache.endpoint)")
      #expect(try await cache.actionResult(for: action) == nil, "\(cache.endpoint)")
      try await cache.put(blob)
      try await cache.storeActionResult(result, for: action)
      #expect(try await cache.blob(Digest(of: blob)) == blob, "\(cache.endpoint)")
      #expect(try await cache.actionResult(for: action)?.stdoutDigest == Digest(of: blob), "\(cache.endpoint)")
      await cache.close()
    }
  }

  @Test func aBlobWhoseBytesDoNotMatchItsNameIsAnError() async throws {
    // The TLS one is let go unclosed: that must not stop the process (AsyncHTTPClient would).
    let cache = try caches()[0]
    let claimed = Digest(of: (0..<64).map { _ in UInt8.random(in: 0...255) })
    // Stored under another blob's name, as a damaged or malicious cache would serve it.
    try await cache.put("cas/\(claimed.hash)", Array(repeating: 7, count: Int(claimed.sizeBytes)))
    await #expect(throws: RemoteError.self) { try await cache.blob(claimed) }
    await cache.close()
  }

  @Test func aTLSCacheWhoseCertificateIsNotTrustedIsAnError() async throws {
    let https = try #require(TestServers.address("RUNNER_TEST_HTTPS_CACHE"))
    // AsyncHTTPClient tries again until the deadline: a short one, the error is the same.
    let cache = try HTTPCache(RemoteEndpoint(parsing: https), timeout: .seconds(3))
    await #expect(throws: RemoteError.self) { try await cache.blob(Digest(of: [1, 2, 3])) }
    await cache.close()
  }
}
