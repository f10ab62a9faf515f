import Glibc

/// A TCP socket bound to a free port on 127.0.0.1, listening (a server that never answers)
/// or not (close it, and the port refuses connections).
struct LocalSocket {
  let descriptor: Int32
  let port: Int

  init(listening: Bool) {
    descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let descriptor = descriptor
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && (!listening || listen(descriptor, 4) == 0)
          && getsockname(descriptor, $0, &length) == 0
      }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  func close() { _ = Glibc.close(descriptor) }
}
