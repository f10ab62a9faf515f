import AsyncHTTPClient
import Glibc
import Imaging
import NIOCore
import NIOPosix
import RunnerBasics
import Synchronization

/// Fetches image `load:` URLs on AsyncHTTPClient (the HTTP cache's stack): redirects (up to
/// 10, no cycles, http and https only), the proxy variables (`HTTPProxy`), a time limit on the
/// whole transfer, a body limit checked before and while reading, and cancellation.
package final class HTTPFetcher: URLFetching {
  private let userAgent: String
  private let environment: [String: String]
  private let connectTimeout: Duration
  /// One client per proxy (nil: direct), made when first needed.
  private let clients = Mutex<[HTTPProxy?: HTTPClient]>([:])

  /// - Parameters:
  ///   - userAgent: sent with every request (`runner/0.6.0`).
  ///   - environment: where the proxy variables are read.
  ///   - connectTimeout: how long a host that takes no connection is tried.
  package init(
    userAgent: String, environment: [String: String] = ProcessEnvironment.current,
    connectTimeout: Duration = .seconds(10)
  ) {
    self.userAgent = userAgent
    self.environment = environment
    self.connectTimeout = connectTimeout
  }

  /// AsyncHTTPClient stops the process when a client it did not shut down goes away.
  deinit {
    for client in clients.withLock({ Array($0.values) }) { client.shutdown { _ in } }
  }

  package func fetch(_ url: String, timeout: Duration, maxBytes: Int) async throws(ImagingError) -> [UInt8] {
    guard HTTPProxy.Target(url) != nil else {
      throw .fetchFailed(url: url, reason: "only http:// and https:// urls are supported")
    }
    if Task.isCancelled { throw .fetchFailed(url: url, reason: "cancelled") }
    var request = HTTPClientRequest(url: url)
    request.headers.add(name: "User-Agent", value: userAgent)
    do {
      let client = client(for: HTTPProxy.forURL(url, environment: environment))
      let response = try await client.execute(request, deadline: .now() + .init(timeout))
      if response.status.code >= 400 { throw ImagingError.httpStatus(url: url, status: Int(response.status.code)) }
      if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > maxBytes {
        throw ImagingError.responseTooLarge(url: url, limit: maxBytes)
      }
      var body: [UInt8] = []
      for try await chunk in response.body {
        guard body.count + chunk.readableBytes <= maxBytes else {
          throw ImagingError.responseTooLarge(url: url, limit: maxBytes)
        }
        body += chunk.readableBytesView
      }
      if Task.isCancelled { throw ImagingError.fetchFailed(url: url, reason: "cancelled") }
      return body
    } catch let error as ImagingError {
      throw error
    } catch {
      throw .fetchFailed(url: url, reason: Self.reason(for: error, timeout: timeout))
    }
  }

  private func client(for proxy: HTTPProxy?) -> HTTPClient {
    clients.withLock { clients in
      if let client = clients[proxy] { return client }
      var configuration = HTTPClient.Configuration(
        redirectConfiguration: .follow(max: 10, allowCycles: false),
        timeout: .init(connect: .init(connectTimeout)))
      // A refused connection or an unknown host fails the fetch at once, as curl's did, rather
      // than being tried again until the connect timeout.
      configuration.connectionPool.retryConnectionEstablishment = false
      if let proxy {
        configuration.proxy = .server(
          host: proxy.host, port: proxy.port,
          authorization: proxy.credentials.map { .basic(username: $0.user, password: $0.password) })
      }
      let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
      clients[proxy] = client
      return client
    }
  }

  /// The reason a transfer failed, in curl's plain words rather than the library's type names.
  static func reason(for error: any Error, timeout: Duration) -> String {
    if error is CancellationError || Task.isCancelled { return "cancelled" }
    if let connection = error as? NIOConnectionError {
      if let failure = connection.connectionErrors.first {
        return
          "cannot connect to \(connection.host):\(connection.port): \(reason(for: failure.error, timeout: timeout))"
      }
      return "cannot resolve the host '\(connection.host)'"
    }
    if let io = error as? IOError { return String(cString: strerror(io.errnoCode)).lowercased() }
    if let unknown = error as? SocketAddressError.UnknownHost { return "cannot resolve the host '\(unknown.host)'" }
    guard let client = error as? HTTPClientError else { return "\(error)".lowercased() }
    switch client {
    case .deadlineExceeded, .readTimeout: return "timed out after \(timeout)"
    case .cancelled: return "cancelled"
    case .connectTimeout, .getConnectionFromPoolTimeout: return "cannot connect (timed out)"
    case .redirectLimitReached: return "more than 10 redirects"
    case .redirectCycleDetected: return "the redirects go round in a cycle"
    default: return client.description.lowercased()
    }
  }
}
