import Testing

@testable import Imaging

@Suite("Fetching URLs from a loopback server")
struct URLFetcherTests {
  static func server() throws -> LoopbackServer {
    let png = try Fixtures.bytes("rgb8.png")
    return try LoopbackServer(routes: [
      "/image.png": .init(status: 200, body: png),
      "/moved": .init(status: 302, headers: ["Location: /image.png"]),
      "/big": .init(status: 200, body: [UInt8](repeating: 7, count: 50_000)),
      "/broken": .init(status: 500, body: Array("oops".utf8)),
    ])
  }

  @Test func fetchesAndDecodes() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.baseURL + "/image.png"
    let bytes = try await fetch(url: url, timeout: .seconds(10), maxBytes: 1_000_000)
    #expect(bytes == (try Fixtures.bytes("rgb8.png")))
    let image = try ImageCodec.decode(bytes, name: url)
    #expect(image.width == 5)
  }

  @Test func followsRedirects() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let bytes = try await fetch(url: server.baseURL + "/moved", timeout: .seconds(10), maxBytes: 1_000_000)
    #expect(bytes == (try Fixtures.bytes("rgb8.png")))
  }

  @Test("http errors name the status and the url", arguments: [("/missing.png", 404), ("/broken", 500)])
  func httpError(path: String, status: Int) async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.baseURL + path
    let error = await #expect(throws: ImagingError.self) {
      try await fetch(url: url, timeout: .seconds(10), maxBytes: 1_000_000)
    }
    #expect(error == .httpStatus(url: url, status: status))
    #expect(error?.description == "fetching '\(url)' failed with http status \(status)")
  }

  @Test func bodyLargerThanTheLimit() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.baseURL + "/big"
    await #expect(throws: ImagingError.responseTooLarge(url: url, limit: 1000)) {
      try await fetch(url: url, timeout: .seconds(10), maxBytes: 1000)
    }
  }

  @Test func connectionRefused() async throws {
    let server = try Self.server()
    let url = server.baseURL + "/image.png"
    server.stop()
    let error = await #expect(throws: ImagingError.self) {
      try await fetch(url: url, timeout: .seconds(10), maxBytes: 1000)
    }
    guard case .fetchFailed(let reported, _)? = error else {
      Issue.record("expected .fetchFailed, got \(String(describing: error))")
      return
    }
    #expect(reported == url)
  }

  @Test func onlyHTTPSchemes() async {
    await #expect(throws: ImagingError.self) {
      try await fetch(url: "file:///etc/passwd", timeout: .seconds(1), maxBytes: 10)
    }
  }
}
