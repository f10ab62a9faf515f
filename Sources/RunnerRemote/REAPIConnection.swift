import GRPCCore
import GRPCNIOTransportHTTP2
import REAPI
import RunnerCache
import RunnerRemoteAPI
import Synchronization

package typealias Digest = Build_Bazel_Remote_Execution_V2_Digest

extension Build_Bazel_Remote_Execution_V2_Digest {
  /// The name REAPI gives a blob: its SHA-256 in lowercase hex, and its size.
  package init(of bytes: [UInt8]) {
    self.init()
    hash = ContentHasher.sha256Hex(bytes)
    sizeBytes = Int64(bytes.count)
  }
}

/// A failed exchange with a remote server, as a person would read it in a warning: the
/// executor's own `RemoteCacheError` (`corrupt` when the server sent bytes other than those
/// asked for).
package typealias RemoteError = RemoteCacheError

/// One connection to a REAPI v2 server (gRPC over HTTP/2, plaintext or TLS): its capabilities
/// and its content-addressable storage. Every call has a deadline; the connection is shared by
/// concurrent calls and closed with `close()`.
package final class REAPIConnection: Sendable {
  package let endpoint: RemoteEndpoint
  let client: GRPCClient<HTTP2ClientTransport.Posix>
  private let running: Task<Void, Never>
  let metadata: Metadata
  let options: CallOptions
  /// The server's largest batch (`batchLimit(_:)`), once asked.
  let knownBatchLimit = Mutex<Int?>(nil)
  /// `CancelOperation` requests under way (`cancelLater`), which `close()` waits for.
  let cancellations = Mutex<[Task<Void, Never>]>([])

  /// - Parameters:
  ///   - headers: sent with every call (`authorization: Bearer …`).
  ///   - trustRoots: a PEM file of the certificates a `grpcs://` server's must chain to
  ///     (the system's when nil).
  ///   - timeout: the deadline of each call.
  package init(
    _ endpoint: RemoteEndpoint, headers: [(name: String, value: String)] = [], trustRoots: String? = nil,
    timeout: Duration = .seconds(10)
  ) throws(RemoteError) {
    guard endpoint.scheme.isGRPC else { throw RemoteError("\(endpoint) is not a gRPC address") }
    self.endpoint = endpoint
    let security: HTTP2ClientTransport.Posix.TransportSecurity
    if endpoint.scheme.usesTLS {
      security = .tls { config in
        if let trustRoots { config.trustRoots = .certificates([.file(path: trustRoots, format: .pem)]) }
      }
    } else {
      security = .plaintext
    }
    let transport: HTTP2ClientTransport.Posix
    do {
      // Keepalive pings find a connection that died silently under a long call (Execute has
      // no deadline): the call fails within 40 s instead of waiting forever.
      var config = HTTP2ClientTransport.Posix.Config.defaults
      config.connection.keepalive = .init(time: .seconds(30), timeout: .seconds(10), allowWithoutCalls: false)
      transport = try HTTP2ClientTransport.Posix(
        target: .dns(host: endpoint.host, port: endpoint.port), transportSecurity: security, config: config)
    } catch {
      throw RemoteError("cannot reach \(endpoint): \(error)")
    }
    let client = GRPCClient(transport: transport)
    self.client = client
    running = Task { try? await client.runConnections() }
    var metadata = Metadata()
    for header in headers + (endpoint.authorization.map { [$0] } ?? []) {
      metadata.addString(header.value, forKey: header.name.lowercased())
    }
    self.metadata = metadata
    var options = CallOptions.defaults
    options.timeout = timeout
    // A server that refuses the connection fails the call at once, not at its deadline.
    options.waitForReady = false
    self.options = options
  }

  /// Ends the connection once the calls under way have finished, or after 1 s: a server that
  /// never answers must not hold runner up.
  package func close() async {
    for cancelling in cancellations.withLock({ $0 }) { await cancelling.value }
    client.beginGracefulShutdown()
    let running = self.running
    let cutoff = Task {
      try? await Task.sleep(for: .seconds(1))
      running.cancel()
    }
    await running.value
    cutoff.cancel()
  }

  /// What the server supports: its digest functions, its largest batch.
  package func capabilities() async throws(RemoteError) -> Build_Bazel_Remote_Execution_V2_ServerCapabilities {
    var request = Build_Bazel_Remote_Execution_V2_GetCapabilitiesRequest()
    request.instanceName = endpoint.path
    return try await call("GetCapabilities") {
      try await Build_Bazel_Remote_Execution_V2_Capabilities.Client(wrapping: client)
        .getCapabilities(request, metadata: metadata, options: options)
    }
  }

  /// Of `digests`, the ones the server's CAS does not hold.
  package func missing(_ digests: [Digest]) async throws(RemoteError) -> [Digest] {
    var request = Build_Bazel_Remote_Execution_V2_FindMissingBlobsRequest()
    request.instanceName = endpoint.path
    request.blobDigests = digests
    return try await call("FindMissingBlobs") {
      try await Build_Bazel_Remote_Execution_V2_ContentAddressableStorage.Client(wrapping: client)
        .findMissingBlobs(request, metadata: metadata, options: options).missingBlobDigests
    }
  }

  /// Stores `blobs` in one batch; every blob must be accepted.
  package func upload(_ blobs: [[UInt8]]) async throws(RemoteError) {
    var request = Build_Bazel_Remote_Execution_V2_BatchUpdateBlobsRequest()
    request.instanceName = endpoint.path
    request.requests = blobs.map { blob in
      var item = Build_Bazel_Remote_Execution_V2_BatchUpdateBlobsRequest.Request()
      item.digest = Digest(of: blob)
      item.data = .init(blob)
      return item
    }
    let response = try await call("BatchUpdateBlobs") {
      try await Build_Bazel_Remote_Execution_V2_ContentAddressableStorage.Client(wrapping: client)
        .batchUpdateBlobs(request, metadata: metadata, options: options)
    }
    if let refused = response.responses.first(where: { $0.status.code != 0 }) {
      throw RemoteError(
        "\(endpoint) refused blob \(refused.digest.hash)/\(refused.digest.sizeBytes): \(refused.status.message)")
    }
  }

  /// The blobs of `digests` the server holds, each checked against its digest: a blob whose
  /// bytes do not match is an error, never returned.
  package func download(_ digests: [Digest]) async throws(RemoteError) -> [Digest: [UInt8]] {
    var request = Build_Bazel_Remote_Execution_V2_BatchReadBlobsRequest()
    request.instanceName = endpoint.path
    request.digests = digests
    let response = try await call("BatchReadBlobs") {
      try await Build_Bazel_Remote_Execution_V2_ContentAddressableStorage.Client(wrapping: client)
        .batchReadBlobs(request, metadata: metadata, options: options)
    }
    var blobs: [Digest: [UInt8]] = [:]
    for item in response.responses where item.status.code == 0 {
      let bytes = [UInt8](item.data)
      guard Digest(of: bytes) == item.digest else {
        throw RemoteError("\(endpoint) sent blob \(item.digest.hash) with bytes of another digest", corrupt: true)
      }
      blobs[item.digest] = bytes
    }
    return blobs
  }

  /// Runs one call, turning gRPC's errors into a `RemoteError` that names the call.
  func call<Result: Sendable>(_ name: String, _ body: () async throws -> Result) async throws(RemoteError)
    -> Result
  {
    do {
      return try await body()
    } catch let error as RPCError {
      throw RemoteError("\(name) on \(endpoint): \(error.code): \(error.message)")
    } catch {
      throw RemoteError("\(name) on \(endpoint): \(error)")
    }
  }

  /// Runs one call whose NOT_FOUND means "none": `notFound` then.
  func call<Result: Sendable>(_ name: String, notFound: Result, _ body: () async throws -> Result)
    async throws(RemoteError) -> Result
  {
    do {
      return try await body()
    } catch let error as RPCError where error.code == .notFound {
      return notFound
    } catch let error as RPCError {
      throw RemoteError("\(name) on \(endpoint): \(error.code): \(error.message)")
    } catch {
      throw RemoteError("\(name) on \(endpoint): \(error)")
    }
  }
}
