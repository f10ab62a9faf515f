import AsyncHTTPClient
import NIOCore

/// Sends a run's trace to an OpenTelemetry collector: one OTLP/HTTP POST of the protobuf
/// export request, within the settings' timeout. A collector that is down, slow or refuses
/// it costs the run at most that, and one warning; never its outcome.
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
    do {
      let response = try await client.execute(request, timeout: .init(timeout))
      // The body (a partial-success note, or an error) is not read beyond a little.
      _ = try? await response.body.collect(upTo: 1 << 16)
      guard (200..<300).contains(Int(response.status.code)) else {
        return "OpenTelemetry: \(endpoint) answered \(response.status.code): the run's trace was not taken"
      }
      return nil
    } catch {
      return "OpenTelemetry: the run's trace could not be sent to \(endpoint): \(Self.describe(error))"
    }
  }

  static func describe(_ error: any Error) -> String {
    let text = String(describing: error)
    if text.contains("connectTimeout") || text.contains("deadlineExceeded") || text.contains("readTimeout") {
      return "no answer in time"
    }
    if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
    return text
  }
}
