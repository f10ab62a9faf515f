import Foundation
import Imaging
import TestSupport
import Testing

@testable import RunnerExecution

/// `load: {url: …}` downloads through curl run by the process reactor, from a loopback server.
@Suite("Downloading URLs from a loopback server")
struct URLDownloadTests {
  /// Every byte value, CR LF pairs, lone newlines, and a run of 1.5 MiB without a newline
  /// (which the reactor hands over in fragments): the body must come back byte for byte.
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
      "/big": .init(status: 200, body: [UInt8](repeating: 7, count: 50_000)),
      "/unannounced": .init(status: 200, body: [UInt8](repeating: 7, count: 4 << 20), announcesLength: false),
      "/broken": .init(status: 500, body: Array("oops".utf8)),
      hang: .init(status: 200, hang: true),
    ])
  }

  @Test func bodyComesBackByteForByte() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let bytes = try await URLDownload(url: server.baseURL + "/body", timeout: .seconds(10), maxBytes: 4 << 20).run()
    #expect(bytes == Self.body)
  }

  @Test func followsRedirects() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let bytes = try await URLDownload(url: server.baseURL + "/moved", timeout: .seconds(10), maxBytes: 4 << 20).run()
    #expect(bytes == Self.body)
  }

  @Test("http errors name the status and the url", arguments: [("/missing.png", 404), ("/broken", 500)])
  func httpError(path: String, status: Int) async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.baseURL + path
    let error = await #expect(throws: ImagingError.self) {
      try await URLDownload(url: url, timeout: .seconds(10), maxBytes: 1_000_000).run()
    }
    #expect(error == .httpStatus(url: url, status: status))
    #expect(error?.description == "fetching '\(url)' failed with http status \(status)")
  }

  @Test func bodyLargerThanTheLimit() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.baseURL + "/big"
    await #expect(throws: ImagingError.responseTooLarge(url: url, limit: 1000)) {
      try await URLDownload(url: url, timeout: .seconds(10), maxBytes: 1000).run()
    }
  }

  /// A body that does not say its size is cut off where it passes the limit (curl cannot refuse
  /// it up front), and curl is ended rather than left to read the rest.
  @Test func anUnannouncedBodyIsCutOffAtTheLimit() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.baseURL + "/unannounced"
    await #expect(throws: ImagingError.responseTooLarge(url: url, limit: 1000)) {
      try await URLDownload(url: url, timeout: .seconds(10), maxBytes: 1000).run()
    }
    #expect(ProcScan.pids(containing: "/unannounced").isEmpty, "no curl is left")
  }

  /// A cancelled download (fail-fast, Ctrl-C) ends curl's process group at once, as a task's.
  @Test func cancellingEndsCurl() async throws {
    let marker = "/hang-\(UUID().uuidString)"
    let server = try Self.server(hangAt: marker)
    defer { server.stop() }
    let url = server.baseURL + marker
    let download = Task { () -> ImagingError? in
      do throws(ImagingError) {
        _ = try await URLDownload(url: url, timeout: .seconds(60), maxBytes: 1000).run()
        return nil
      } catch {
        return error
      }
    }
    // Polled without blocking: the download needs this pool's threads to start curl.
    for _ in 0..<500 where ProcScan.pids(containing: marker).isEmpty { try await Task.sleep(for: .milliseconds(10)) }
    #expect(!ProcScan.pids(containing: marker).isEmpty, "curl started")
    download.cancel()
    let error = await download.value
    #expect(error == .fetchFailed(url: url, reason: "cancelled"))
    #expect(ProcScan.pids(containing: marker).isEmpty, "no curl is left")
  }

  @Test func connectionRefused() async throws {
    let server = try Self.server()
    let url = server.baseURL + "/image.png"
    server.stop()
    let error = await #expect(throws: ImagingError.self) {
      try await URLDownload(url: url, timeout: .seconds(10), maxBytes: 1000).run()
    }
    guard case .fetchFailed(let reported, _)? = error else {
      Issue.record("expected .fetchFailed, got \(String(describing: error))")
      return
    }
    #expect(reported == url)
  }

  @Test func onlyHTTPSchemes() async {
    await #expect(throws: ImagingError.self) {
      try await URLDownload(url: "file:///etc/passwd", timeout: .seconds(1), maxBytes: 10).run()
    }
  }
}
