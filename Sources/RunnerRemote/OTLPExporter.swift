import AsyncHTTPClient
import NIOCore

/// Sends a run's trace to an OpenTelemetry collector: one OTLP/HTTP POST of the protobuf
/// export request. The whole exchange is raced against the timeout, so a collector that is
/// down, slow, or answers a byte at a time costs the run at most that, and one warning; never
/// its outcome. Warnings name the collector without credentials and the failure by its kind.
package enum OTLPExporter {
  /// - Returns: nil when the collector took it, else the warning to print.
  package static func send(
    _ payload: [UInt8], to endpoint: String, headers: [(name: String, value: String)], timeout: Duration
  ) async -> String? {
    var configuration = HTTPClient.Configuration()
    configuration.timeout = .init(connect: .init(timeout), read: .init(timeout))
    configuration.connectionPool.retryConnectionEstablishment = false
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    defer { client.shutdown { _ in } }
    var request = HTTPClientRequest(url: endpoint)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/x-protobuf")
    for header in headers { request.headers.add(name: header.name, value: header.value) }
    request.body = .bytes(ByteBuffer(bytes: payload))
    let post = request
    let shown = shownURL(endpoint)
    let outcome = await withTaskGroup(of: String?.self) { group -> String? in
      group.addTask {
        do {
          // Only the status: the body (a partial-success note) is not waited for.
          let response = try await client.execute(post, timeout: .init(timeout))
          guard (200..<300).contains(Int(response.status.code)) else {
            return "OpenTelemetry: \(shown) answered \(response.status.code): the run's trace was not taken"
          }
          return nil
        } catch {
          return "OpenTelemetry: the run's trace could not be sent to \(shown): \(Self.describe(error))"
        }
      }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return "OpenTelemetry: the run's trace could not be sent to \(shown): no answer in time"
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
    return outcome
  }

  /// The endpoint without a user, password or query (which may hold a key).
  static func shownURL(_ url: String) -> String {
    var text = Substring(url)
    if let scheme = text.firstRange(of: "://") {
      let rest = text[scheme.upperBound...]
      let host = rest.prefix { $0 != "/" }
      if let at = host.lastIndex(of: "@") {
        text = text[..<scheme.upperBound] + rest[rest.index(after: at)...]
      }
    }
    return String(text.prefix { $0 != "?" && $0 != "#" })
  }

  /// The kind of a failure, never its text (which may repeat a header's value).
  static func describe(_ error: any Error) -> String {
    let text = String(describing: error)
    if text.contains("connectTimeout") || text.contains("deadlineExceeded") || text.contains("readTimeout") {
      return "no answer in time"
    }
    if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
    if text.contains("invalidHeader") { return "a header of OTEL_EXPORTER_OTLP_HEADERS is not valid" }
    if text.contains("invalidURL") || text.contains("badScheme") || text.contains("emptyHost") {
      return "the URL is not valid"
    }
    if text.contains("NIOSSL") || text.contains("TLS") || text.contains("handshake") {
      return "the TLS handshake failed"
    }
    if text.contains("CancellationError") { return "cancelled" }
    return "the connection failed"
  }
}
