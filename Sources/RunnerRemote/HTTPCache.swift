import AsyncHTTPClient
import NIOCore
import NIOSSL
import REAPI
import SwiftProtobuf

/// Bazel's HTTP cache protocol: `GET`/`PUT` `{prefix}/cas/{sha256}` for blobs and
/// `{prefix}/ac/{sha256}` for an action's serialized `ActionResult` (bazel-remote, nginx or
/// any WebDAV server). Every blob read back is checked against its digest.
package final class HTTPCache: Sendable {
  package let endpoint: RemoteEndpoint
  private let client: HTTPClient
  private let headers: [(name: String, value: String)]
  private let timeout: Duration

  /// - Parameters:
  ///   - headers: sent with every request (`Authorization: Bearer …`).
  ///   - trustRoots: a PEM file of the certificates an `https://` server's must chain to
  ///     (the system's when nil).
  ///   - timeout: the deadline of each request.
  package init(
    _ endpoint: RemoteEndpoint, headers: [(name: String, value: String)] = [], trustRoots: String? = nil,
    timeout: Duration = .seconds(10)
  ) throws(RemoteError) {
    guard !endpoint.scheme.isGRPC else { throw RemoteError("\(endpoint) is not an HTTP address") }
    self.endpoint = endpoint
    self.headers = headers + (endpoint.authorization.map { [$0] } ?? [])
    self.timeout = timeout
    var tls = TLSConfiguration.makeClientConfiguration()
    if let trustRoots { tls.trustRoots = .file(trustRoots) }
    var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
    // A server that takes no connection within 10 s is down, whatever the deadline of a
    // request; one that refuses it is down at once (AsyncHTTPClient would retry it until the
    // connect timeout: 10 s for every run against a cache that is not there).
    configuration.timeout = .init(connect: .init(min(timeout, .seconds(10))), read: .init(timeout))
    configuration.connectionPool.retryConnectionEstablishment = false
    client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
  }

  /// Ends the client once the requests under way have finished.
  package func close() async {
    try? await client.shutdown()
  }

  /// AsyncHTTPClient stops the process when a client it did not shut down goes away: one never
  /// closed is shut down here, without waiting (a second shutdown only reports it was done).
  deinit {
    client.shutdown { _ in }
  }

  /// The blob of `digest`, checked against it; nil when the cache does not hold it.
  package func blob(_ digest: Digest) async throws(RemoteError) -> [UInt8]? {
    guard let bytes = try await get("cas/\(digest.hash)", limit: Int(digest.sizeBytes)) else { return nil }
    guard Digest(of: bytes) == digest else {
      throw RemoteError("\(endpoint) sent blob \(digest.hash) with bytes of another digest", corrupt: true)
    }
    return bytes
  }

  /// Stores a blob under its digest.
  package func put(_ blob: [UInt8]) async throws(RemoteError) {
    try await put("cas/\(Digest(of: blob).hash)", blob)
  }

  /// The result the cache holds for `action`; nil when it holds none.
  package func actionResult(for action: Digest) async throws(RemoteError)
    -> Build_Bazel_Remote_Execution_V2_ActionResult?
  {
    guard let bytes = try await get("ac/\(action.hash)", limit: 64 << 20) else { return nil }
    do {
      return try Build_Bazel_Remote_Execution_V2_ActionResult(serializedBytes: bytes)
    } catch {
      throw RemoteError("\(endpoint) holds a damaged action result for \(action.hash): \(error)", corrupt: true)
    }
  }

  /// Records `result` as `action`'s; the blobs it names must be stored first.
  package func storeActionResult(_ result: Build_Bazel_Remote_Execution_V2_ActionResult, for action: Digest)
    async throws(RemoteError)
  {
    let bytes: [UInt8]
    do { bytes = try result.serializedBytes() } catch { throw RemoteError("cannot encode an action result: \(error)") }
    try await put("ac/\(action.hash)", bytes)
  }

  /// The address of `key`, as said in messages (without the query, which may be a secret).
  func url(_ key: String) -> String {
    endpoint.description + "/" + key
  }

  func request(_ key: String) -> HTTPClientRequest {
    var request = HTTPClientRequest(url: url(key) + (endpoint.query.isEmpty ? "" : "?" + endpoint.query))
    for header in headers { request.headers.add(name: header.name, value: header.value) }
    return request
  }

  /// The body of `key`, nil for 404; a body longer than `limit` is an error.
  ///
  /// The whole transfer has a deadline: the timeout, plus a second for each MiB received (a
  /// big blob may take long on a slow link, at 1 MiB/s or more). A server that sends the
  /// headers and then a byte a second is dropped at the first byte after it; the read timeout
  /// drops one that goes silent.
  func get(_ key: String, limit: Int) async throws(RemoteError) -> [UInt8]? {
    let start = ContinuousClock.now
    do {
      let response = try await client.execute(request(key), timeout: .init(timeout))
      if response.status == .notFound { return nil }
      guard response.status == .ok else {
        throw RemoteError("GET \(url(key)): \(response.status.code) \(response.status.reasonPhrase)")
      }
      var body: [UInt8] = []
      for try await chunk in response.body {
        guard ContinuousClock.now < start + timeout + .seconds(body.count >> 20) else {
          throw RemoteError("GET \(url(key)): timed out after \(timeout)")
        }
        guard body.count + chunk.readableBytes <= limit else {
          throw RemoteError("GET \(url(key)): longer than \(limit) bytes")
        }
        body.append(contentsOf: chunk.readableBytesView)
      }
      return body
    } catch let error as RemoteError {
      throw error
    } catch {
      throw RemoteError("GET \(url(key)): \(HTTPFetcher.reason(for: error, timeout: timeout))")
    }
  }

  func put(_ key: String, _ bytes: [UInt8]) async throws(RemoteError) {
    var request = request(key)
    request.method = .PUT
    request.body = .bytes(ByteBuffer(bytes: bytes))
    do {
      let response = try await client.execute(request, timeout: .init(timeout))
      guard (200..<300).contains(response.status.code) else {
        throw RemoteError("PUT \(url(key)): \(response.status.code) \(response.status.reasonPhrase)")
      }
    } catch let error as RemoteError {
      throw error
    } catch {
      throw RemoteError("PUT \(url(key)): \(HTTPFetcher.reason(for: error, timeout: timeout))")
    }
  }
}
