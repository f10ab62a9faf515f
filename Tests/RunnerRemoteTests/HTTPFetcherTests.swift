import Foundation
import Imaging
import TestSupport
import Testing

@testable import RunnerRemote

/// `load: {url: …}` fetched on AsyncHTTPClient, from a loopback server.
@Suite("Fetching image URLs from a loopback server")
struct HTTPFetcherTests {
  /// Every byte value, CR LF pairs, lone newlines, and a run of 1.5 MiB: the body must come
  /// back byte for byte.
  static let body: [UInt8] = {
    var bytes = (0...255).map { UInt8($0) }
    bytes += Array("line\r\n\n\nend".utf8)
    bytes += [UInt8](repeating: 0x41, count: 3 << 19)
    bytes += [0x0A, 0x00, 0x0A]
    return bytes
  }()

  static func server(hangAt hang: String = "/hang") throws -> RouteServer {
    try RouteServer(routes: [
      "/body": .init(status: 200, body: body),
      "/moved": .init(status: 302, headers: ["Location: /body"]),
      "/loop": .init(status: 302, headers: ["Location: /loop"]),
      "/big": .init(status: 200, body: [UInt8](repeating: 7, count: 50_000)),
      "/unannounced": .init(status: 200, body: [UInt8](repeating: 7, count: 4 << 20), announcesLength: false),
      "/broken": .init(status: 500, body: Array("oops".utf8)),
      "/proxied.png": .init(status: 200, body: Array("through the proxy".utf8)),
      hang: .init(status: 200, hang: true),
    ])
  }

  /// A fetcher with no proxy variables, whatever the machine has.
  static func fetcher(_ environment: [String: String] = [:]) -> HTTPFetcher {
    HTTPFetcher(userAgent: "runner-tests", environment: environment, connectTimeout: .seconds(2))
  }

  @Test func bodyComesBackByteForByte() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let bytes = try await Self.fetcher().fetch(server.baseURL + "/body", timeout: .seconds(10), maxBytes: 4 << 20)
    #expect(bytes == Self.body)
  }

  @Test func followsRedirects() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let bytes = try await Self.fetcher().fetch(server.baseURL + "/moved", timeout: .seconds(10), maxBytes: 4 << 20)
    #expect(bytes == Self.body)
  }

  @Test func aRedirectCycleFails() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.baseURL + "/loop"
    await #expect(throws: ImagingError.fetchFailed(url: url, reason: "the redirects go round in a cycle")) {
      try await Self.fetcher().fetch(url, timeout: .seconds(10), maxBytes: 1000)
    }
  }

  @Test("http errors name the status and the url", arguments: [("/missing.png", 404), ("/broken", 500)])
  func httpError(path: String, status: Int) async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.baseURL + path
    let error = await #expect(throws: ImagingError.self) {
      try await Self.fetcher().fetch(url, timeout: .seconds(10), maxBytes: 1_000_000)
    }
    #expect(error == .httpStatus(url: url, status: status))
    #expect(error?.description == "fetching '\(url)' failed with http status \(status)")
  }

  @Test func bodyLargerThanTheLimit() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.baseURL + "/big"
    await #expect(throws: ImagingError.responseTooLarge(url: url, limit: 1000)) {
      try await Self.fetcher().fetch(url, timeout: .seconds(10), maxBytes: 1000)
    }
  }

  /// A body that does not say its size is cut off where it passes the limit.
  @Test func anUnannouncedBodyIsCutOffAtTheLimit() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.baseURL + "/unannounced"
    await #expect(throws: ImagingError.responseTooLarge(url: url, limit: 1000)) {
      try await Self.fetcher().fetch(url, timeout: .seconds(10), maxBytes: 1000)
    }
  }

  /// A server that takes the request and never answers costs the time limit, not more.
  @Test func aServerThatNeverAnswersTimesOut() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.baseURL + "/hang"
    await #expect(throws: ImagingError.fetchFailed(url: url, reason: "timed out after 1.0 seconds")) {
      try await Self.fetcher().fetch(url, timeout: .seconds(1), maxBytes: 1000)
    }
  }

  /// A cancelled fetch (fail-fast, Ctrl-C) ends at once, without waiting for the server.
  @Test func cancellingEndsTheFetch() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.baseURL + "/hang"
    let fetcher = Self.fetcher()
    let fetch = Task { () -> ImagingError? in
      do throws(ImagingError) {
        _ = try await fetcher.fetch(url, timeout: .seconds(60), maxBytes: 1000)
        return nil
      } catch {
        return error
      }
    }
    try await Task.sleep(for: .milliseconds(200))
    fetch.cancel()
    let error = await fetch.value
    #expect(error == .fetchFailed(url: url, reason: "cancelled"))
  }

  /// A refused connection and an unknown host fail with their own reason, not tried again
  /// until the connect timeout (which would say "timed out"), in plain words.
  @Test func connectionRefusedAndUnknownHost() async throws {
    let server = try Self.server()
    let url = server.baseURL + "/image.png"
    server.stop()
    let fetcher = HTTPFetcher(userAgent: "runner-tests", environment: [:], connectTimeout: .seconds(60))
    await #expect(throws: ImagingError.fetchFailed(url: url, reason: "connection refused")) {
      try await fetcher.fetch(url, timeout: .seconds(60), maxBytes: 1000)
    }
    let unknown = "http://no-such-host.invalid/a.png"
    await #expect(
      throws: ImagingError.fetchFailed(url: unknown, reason: "cannot resolve the host 'no-such-host.invalid'")
    ) {
      try await fetcher.fetch(unknown, timeout: .seconds(60), maxBytes: 1000)
    }
  }

  @Test func onlyHTTPSchemes() async {
    await #expect(
      throws: ImagingError.fetchFailed(
        url: "file:///etc/passwd", reason: "only http:// and https:// urls are supported")
    ) {
      try await Self.fetcher().fetch("file:///etc/passwd", timeout: .seconds(1), maxBytes: 10)
    }
  }

  /// `http_proxy` sends the request through a tunnel the proxy opens to the host (the host's
  /// name is never looked up here); `no_proxy` goes direct.
  @Test func goesThroughTheProxyTheEnvironmentNames() async throws {
    let proxy = try Self.server()
    defer { proxy.stop() }
    let url = "http://images.example.invalid/proxied.png"
    let fetcher = Self.fetcher(["http_proxy": "http://127.0.0.1:\(proxy.port)"])
    let bytes = try await fetcher.fetch(url, timeout: .seconds(10), maxBytes: 1000)
    #expect(bytes == Array("through the proxy".utf8))
    #expect(proxy.tunnelled == ["images.example.invalid:80"])
    let direct = Self.fetcher(["http_proxy": "http://127.0.0.1:\(proxy.port)", "NO_PROXY": "example.invalid"])
    await #expect(throws: ImagingError.self) {
      try await direct.fetch(url, timeout: .seconds(5), maxBytes: 1000)
    }
  }

  @Test func proxyAddresses() {
    let proxy = HTTPProxy(address: "http://build%40ci:p%3Ass@proxy.corp:3128/")
    #expect(proxy?.host == "proxy.corp" && proxy?.port == 3128)
    #expect(proxy?.credentials == .init(user: "build@ci", password: "p:ss"))
    #expect(HTTPProxy(address: "proxy.corp")?.port == 1080)
    #expect(HTTPProxy(address: "socks5://proxy.corp:1080") == nil)
    #expect(HTTPProxy(address: "http://proxy.corp:0") == nil)
    let environment = [
      "https_proxy": "http://secure:8443", "ALL_PROXY": "http://all:8080", "no_proxy": ".local, 127.0.0.1",
    ]
    #expect(HTTPProxy.forURL("https://example.com/a.png", environment: environment)?.host == "secure")
    #expect(HTTPProxy.forURL("http://example.com/a.png", environment: environment)?.host == "all")
    #expect(HTTPProxy.forURL("http://printer.local:631/a.png", environment: environment) == nil)
    #expect(HTTPProxy.forURL("http://user@127.0.0.1:99/a.png", environment: environment) == nil)
    #expect(HTTPProxy.forURL("http://example.com", environment: ["no_proxy": "*", "http_proxy": "x:1"]) == nil)
  }
}
