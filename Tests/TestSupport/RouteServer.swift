import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A tiny HTTP/1.0 server on 127.0.0.1 with a kernel-chosen port, serving fixed routes.
///
/// Each connection gets one response and is closed. It serves at most `maxConnections`
/// requests and stops when `stop()` is called.
public final class RouteServer: Sendable {
  public struct Response: Sendable {
    public var status: Int
    public var headers: [String] = []
    public var body: [UInt8] = []
    /// Read the request, then answer nothing until `stop()`.
    public var hang = false
    /// Send no Content-Length: the client learns the size only by reading the body.
    public var announcesLength = true

    public init(
      status: Int, headers: [String] = [], body: [UInt8] = [], hang: Bool = false, announcesLength: Bool = true
    ) {
      self.status = status
      self.headers = headers
      self.body = body
      self.hang = hang
      self.announcesLength = announcesLength
    }
  }

  public let port: Int
  private let listener: Int32
  private let routes: [String: Response]
  /// `stopping`: no more connections; `closed`: the serving thread closed the listener.
  private let state = Mutex((stopping: false, closed: false, tunnelled: [String]()))

  public init(routes: [String: Response], maxConnections: Int = 20) throws {
    self.routes = routes
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw RouteServerError("socket failed") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(fd, 16) == 0 else { throw RouteServerError("bind/listen failed") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    listener = fd
    port = Int(UInt16(bigEndian: address.sin_port))
    // A thread of its own: blocked in accept() on a Dispatch worker, it would starve the pool
    // that Swift concurrency runs the downloads on.
    Thread { [self] in serve(limit: maxConnections) }.start()
  }

  public var baseURL: String { "http://127.0.0.1:\(port)" }

  /// Wakes the serving thread, which closes the listener itself: closing it here could hand
  /// its descriptor number to the next test's server while this thread still accepts on it
  /// (it then answered another server's requests with 404).
  public func stop() {
    state.withLock { state in
      state.stopping = true
      if !state.closed { shutdown(listener, Int32(SHUT_RDWR)) }
    }
  }

  private func serve(limit: Int) {
    defer {
      state.withLock { state in
        state.closed = true
        close(listener)
      }
    }
    for _ in 0..<limit {
      let client = accept(listener, nil, nil)
      if client < 0 { return }
      handle(client)
      close(client)
      if state.withLock({ $0.stopping }) { return }
    }
  }

  /// The targets of the `CONNECT` requests served (a proxy's tunnels), in order.
  public var tunnelled: [String] { state.withLock { $0.tunnelled } }

  private func readRequest(_ client: Int32) -> (method: String, path: String) {
    var request = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 1)
    // Byte by byte: a tunnelled request follows its CONNECT on the same connection.
    while !request.ends(with: [13, 10, 13, 10]) && request.count < 65536 {
      let count = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, 1) }
      if count <= 0 { break }
      request.append(buffer[0])
    }
    let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
    return (line.first.map(String.init) ?? "", line.count > 1 ? String(line[1]) : "/")
  }

  private func handle(_ client: Int32) {
    var (method, path) = readRequest(client)
    if method == "CONNECT" {
      state.withLock { $0.tunnelled.append(path) }
      _ = send(client, "HTTP/1.1 200 Connection established\r\n\r\n", 39, Int32(MSG_NOSIGNAL))
      (method, path) = readRequest(client)
    }
    let response = routes[path] ?? Response(status: 404, body: Array("not found".utf8))
    if response.hang {
      while !state.withLock({ $0.stopping }) { usleep(10_000) }
      return
    }
    var head = "HTTP/1.0 \(response.status) X\r\nConnection: close\r\n"
    if response.announcesLength { head += "Content-Length: \(response.body.count)\r\n" }
    for header in response.headers { head += header + "\r\n" }
    head += "\r\n"
    let bytes = Array(head.utf8) + response.body
    var sent = 0
    while sent < bytes.count {
      let count = bytes.withUnsafeBytes { send(client, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
      if count <= 0 { return }
      sent += count
    }
  }
}

public struct RouteServerError: Error {
  public let message: String
  init(_ message: String) { self.message = message }
}

extension Array where Element == UInt8 {
  fileprivate func ends(with suffix: [UInt8]) -> Bool {
    count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
  }
}
