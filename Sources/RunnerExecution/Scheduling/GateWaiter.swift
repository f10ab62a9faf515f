import Glibc
import RunnerBasics
import RunnerModel
import RunnerProcess

/// Waits until every readiness gate of a task holds (Operation's `isReady`), polling each
/// until it holds or its own timeout passes.
struct GateWaiter: Sendable {
  static let interval = Duration.milliseconds(100)

  let gates: [ReadinessGate]
  let directory: String
  /// What a `command:` gate runs with: the task's environment.
  var environment = ProcessEnvironment.current
  /// Where the polls wait and the timeouts are measured.
  var clock: any RunClock = SystemClock()
  var processes: any ProcessRunning = ProcessReactor.shared

  /// - Returns: nil when all gates hold; otherwise why the first one failed.
  func wait() async -> String? {
    for gate in gates {
      let deadline = gate.timeout.map { clock.now.advanced(by: $0) }
      while await !holds(gate) {
        if Task.isCancelled { return "cancelled while waiting for \(gate)" }
        if let deadline, let timeout = gate.timeout, clock.now >= deadline {
          return "\(gate) did not hold within \(formatDuration(timeout)) (wait_for at \(gate.location))"
        }
        try? await clock.sleep(for: Self.interval)
      }
    }
    return nil
  }

  func holds(_ gate: ReadinessGate) async -> Bool {
    switch gate.condition {
    case .file(let path):
      let full = FilePath.resolve(path, in: directory)
      return access(full, F_OK) == 0
    case .tcp(let host, let port):
      return Self.canConnect(host: host, port: port)
    case .command(let command):
      let spec = ProcessSpec(
        arguments: ["/bin/sh", "-c", command], environment: environment, workingDirectory: directory)
      let outcome = try? await processes.run(spec, sink: DiscardingSink(), grace: .milliseconds(500))
      return outcome == .exited(0)
    }
  }

  /// A TCP connect with a short timeout (a blackholed host must not stall the poll loop).
  static func canConnect(host: String, port: Int) -> Bool {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return false }
    defer { freeaddrinfo(list) }
    var entry: UnsafeMutablePointer<addrinfo>? = first
    while let info = entry {
      entry = info.pointee.ai_next
      let fd = socket(
        info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
        info.pointee.ai_protocol)
      guard fd >= 0 else { continue }
      defer { close(fd) }
      if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return true }
      guard errno == EINPROGRESS else { continue }
      var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
      guard poll(&poller, 1, 250) == 1 else { continue }
      var error: Int32 = 0
      var length = socklen_t(MemoryLayout<Int32>.size)
      if getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 { return true }
    }
    return false
  }
}

/// Drops output (gate commands are checked by exit code alone).
struct DiscardingSink: OutputLineSink {
  func receive(lines: OutputLines, stream: OutputStreamKind) {}
  func receive(fragment: UnsafeRawBufferPointer, stream: OutputStreamKind) {}
}
