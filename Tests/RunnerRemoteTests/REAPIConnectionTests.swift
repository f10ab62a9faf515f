import Glibc
import REAPI
import Testing

@testable import RunnerRemote

/// The REAPI servers `.ci/remote-servers.sh` starts, named by the variables it writes; a test
/// whose server is not named is reported as skipped.
enum TestServers {
  static func address(_ variable: String) -> String? {
    getenv(variable).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
  }

  static let grpc = ["RUNNER_TEST_CASD", "RUNNER_TEST_BUILDGRID"]
  static var anyGRPC: Bool { grpc.contains { address($0) != nil } }
}

@Suite struct RemoteEndpointTests {
  @Test func readsEachScheme() throws {
    #expect(
      try RemoteEndpoint(parsing: "grpc://127.0.0.1:50061")
        == RemoteEndpoint(scheme: .grpc, host: "127.0.0.1", port: 50061))
    #expect(try RemoteEndpoint(parsing: "grpcs://cache.example.com/main").port == 443)
    #expect(try RemoteEndpoint(parsing: "grpcs://cache.example.com/main").path == "main")
    #expect(try RemoteEndpoint(parsing: "http://[::1]:8080/cache/").description == "http://[::1]:8080/cache")
    #expect(try RemoteEndpoint(parsing: "HTTPS://h/a/b").path == "a/b")
  }

  @Test(arguments: [
    ("127.0.0.1:50061", "needs a scheme: grpc://, grpcs://, http:// or https://"),
    ("ftp://h", "unknown scheme 'ftp' (grpc, grpcs, http or https)"),
    ("grpc://h:0", "the port must be a number from 1 to 65535"),
    ("grpc://h:x", "the port must be a number from 1 to 65535"),
    ("grpc://:80", "names no host"),
    ("http://[::1", "an IPv6 address needs its ']'"),
  ])
  func saysWhatIsWrong(text: String, reason: String) {
    #expect(throws: RemoteEndpoint.Invalid(text, reason)) { try RemoteEndpoint(parsing: text) }
  }
}

@Suite(.enabled(if: TestServers.anyGRPC, "no REAPI server named (.ci/remote-servers.sh start DIR)"))
struct REAPIConnectionTests {
  /// A deadline long enough for a loaded test run: the other suites' synchronous tests wait
  /// for processes on the threads the client's tasks need (the cooperative pool, two threads
  /// on two cores), for as long as those tests run — with 10 s, calls that take milliseconds
  /// on their own timed out in CI; with 120 s, once the binary's tests took 160 s.
  static let deadline = Duration.seconds(900)

  /// Each server named in the environment.
  func servers() throws -> [RemoteEndpoint] {
    try TestServers.grpc.compactMap(TestServers.address).map { try RemoteEndpoint(parsing: $0) }
  }

  @Test func capabilitiesOfferSHA256() async throws {
    for endpoint in try servers() {
      let connection = try REAPIConnection(endpoint, timeout: Self.deadline)
      let capabilities = try await connection.capabilities()
      await connection.close()
      #expect(capabilities.cacheCapabilities.digestFunctions.contains(.sha256), "\(endpoint)")
    }
  }

  @Test func blobsGoInAndComeBackAsTheyWere() async throws {
    // Fresh bytes each run: a server kept from an earlier run must not make the test pass.
    let unique = (0..<64).map { _ in UInt8.random(in: 0...255) }
    let blobs = [unique, Array("hello, REAPI\n".utf8), []]
    let never = Digest(of: unique + [0])
    for endpoint in try servers() {
      let connection = try REAPIConnection(endpoint, timeout: Self.deadline)
      let digests = blobs.map { Digest(of: $0) }
      #expect(try await connection.missing([digests[0], never]) == [digests[0], never], "\(endpoint)")
      try await connection.upload(blobs)
      #expect(try await connection.missing(digests + [never]) == [never], "\(endpoint)")
      let read = try await connection.download([digests[0], digests[1], never])
      await connection.close()
      #expect(read[digests[0]] == unique, "\(endpoint)")
      #expect(read[digests[1]] == blobs[1], "\(endpoint)")
      #expect(read[never] == nil, "\(endpoint)")
    }
  }

}

extension REAPIConnectionTests {
  @Test func blobsAboveTheBatchLimitGoThroughByteStream() async throws {
    var generator = SystemRandomNumberGenerator()
    let large = (0..<(5 << 20) + 17).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let small = Array("small \(UInt64.random(in: 0...UInt64.max))".utf8)
    for endpoint in try servers() {
      let connection = try REAPIConnection(endpoint, timeout: Self.deadline)
      let limit = REAPIConnection.batchLimit(try await connection.capabilities())
      #expect(large.count > limit, "\(endpoint)")
      try await connection.put([large, small], batchLimit: limit)
      #expect(try await connection.missing([Digest(of: large), Digest(of: small)]) == [], "\(endpoint)")
      #expect(try await connection.read(Digest(of: large)) == large, "\(endpoint)")
      #expect(try await connection.read(Digest(of: large + [0])) == nil, "\(endpoint)")
      await connection.close()
    }
  }

  @Test func anActionResultIsFoundOnceStoredAfterItsBlobs() async throws {
    var command = Build_Bazel_Remote_Execution_V2_Command()
    command.arguments = ["/bin/sh", "-c", "echo \(UInt64.random(in: 0...UInt64.max))"]
    let commandBytes: [UInt8] = try command.serializedBytes()
    let inputRoot: [UInt8] = try Build_Bazel_Remote_Execution_V2_Directory().serializedBytes()
    var action = Build_Bazel_Remote_Execution_V2_Action()
    action.commandDigest = Digest(of: commandBytes)
    action.inputRootDigest = Digest(of: inputRoot)
    let actionBytes: [UInt8] = try action.serializedBytes()
    let stdout = Array("hello from the action cache\n".utf8)
    var result = Build_Bazel_Remote_Execution_V2_ActionResult()
    result.exitCode = 3
    result.stdoutDigest = Digest(of: stdout)
    for endpoint in try servers() {
      let connection = try REAPIConnection(endpoint, timeout: Self.deadline)
      #expect(try await connection.actionResult(for: Digest(of: actionBytes)) == nil, "\(endpoint)")
      try await connection.put([commandBytes, inputRoot, actionBytes, stdout])
      try await connection.storeActionResult(result, for: Digest(of: actionBytes))
      let found = try #require(try await connection.actionResult(for: Digest(of: actionBytes)), "\(endpoint)")
      #expect(found.exitCode == 3, "\(endpoint)")
      #expect(found.stdoutDigest == Digest(of: stdout), "\(endpoint)")
      let replayed = found.stdoutRaw.isEmpty ? try await connection.read(found.stdoutDigest) : [UInt8](found.stdoutRaw)
      #expect(replayed == stdout, "\(endpoint)")
      await connection.close()
    }
  }
}

@Suite struct ByteStreamNameTests {
  @Test func uploadNamesCarryVersion4UUIDs() {
    let hex = Set("0123456789abcdef")
    for _ in 0..<100 {
      let parts = REAPIConnection.uuid().split(separator: "-", omittingEmptySubsequences: false)
      #expect(parts.map(\.count) == [8, 4, 4, 4, 12])
      #expect(parts.allSatisfy { $0.allSatisfy(hex.contains) })
      #expect(parts[2].first == "4")
      #expect("89ab".contains(parts[3].first!))
    }
  }
}

@Suite struct REAPIConnectionFaultTests {
  @Test func aServerThatIsNotThereIsAnError() async throws {
    // A port nothing listens on (the test servers' own, plus 7).
    let endpoint = RemoteEndpoint(scheme: .grpc, host: "127.0.0.1", port: 50068)
    let connection = try REAPIConnection(endpoint, timeout: .seconds(2))
    await #expect(throws: RemoteError.self) { try await connection.capabilities() }
    await connection.close()
  }
}
