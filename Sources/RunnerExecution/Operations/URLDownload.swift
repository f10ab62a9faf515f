import Imaging
import RunnerBasics
import Synchronization

/// Downloads a URL for an image task's `load`, by running the system's `curl` as every task's
/// command runs: through the process reactor, in a process group of its own, under the orphan
/// watchdog, and ended with the run when runner is interrupted or killed.
///
/// curl brings HTTPS, redirects, proxies and timeouts that a hand-written client would have to
/// re-create. The body arrives on stdout; `--write-out` appends the final status code after
/// it, so HTTP errors are reported with their code.
package struct URLDownload: Sendable {
  package let url: String
  /// The whole transfer's time limit.
  package let timeout: Duration
  /// The largest body accepted.
  package let maxBytes: Int
  package let reactor: ProcessReactor

  package init(url: String, timeout: Duration, maxBytes: Int, reactor: ProcessReactor = .shared) {
    self.url = url
    self.timeout = timeout
    self.maxBytes = maxBytes
    self.reactor = reactor
  }

  /// Bytes allowed past `maxBytes` on stdout: the "\n<status>" trailer.
  private static let trailerAllowance = 16

  /// - Returns: the response body.
  /// - Throws: `ImagingError.httpStatus` for a status ≥ 400, `.responseTooLarge`, or
  ///   `.fetchFailed` (a bad URL, a network failure, a timeout, no curl, cancellation).
  package func run() async throws(ImagingError) -> [UInt8] {
    let lowered = url.lowercased()
    guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
      throw .fetchFailed(url: url, reason: "only http:// and https:// urls are supported")
    }
    if Task.isCancelled { throw .fetchFailed(url: url, reason: "cancelled") }
    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    let spec = ProcessSpec(
      arguments: [
        "curl", "-q", "--silent", "--show-error", "--location", "--max-redirs", "10",
        "--proto", "=http,https", "--proto-redir", "=http,https",
        "--max-time", String(max(seconds, 0.001)), "--max-filesize", String(maxBytes),
        "--output", "-", "--write-out", "\n%{http_code}", "--url", url,
      ], environment: ProcessEnvironment.current)
    let sink = DownloadSink(limit: maxBytes + Self.trailerAllowance)
    let reactor = self.reactor
    // A body past the limit ends curl at once (a server that streams for ever), through the
    // same cancellation that Ctrl-C uses.
    let transfer = Task { () -> Result<ProcessOutcome, SpawnError> in
      do throws(SpawnError) {
        return .success(try await reactor.run(spec, sink: sink, grace: .milliseconds(200)))
      } catch {
        return .failure(error)
      }
    }
    sink.onOverflow { transfer.cancel() }
    let result = await withTaskCancellationHandler {
      await transfer.value
    } onCancel: {
      transfer.cancel()
    }
    let outcome: ProcessOutcome
    switch result {
    case .success(let ended): outcome = ended
    case .failure(.executableNotFound):
      throw .fetchFailed(url: url, reason: "cannot run curl: curl is not installed (apt-get install curl)")
    case .failure(let error): throw .fetchFailed(url: url, reason: "cannot run curl: \(error)")
    }
    let received = sink.received
    if received.overflowed { throw .responseTooLarge(url: url, limit: maxBytes) }
    if Task.isCancelled { throw .fetchFailed(url: url, reason: "cancelled") }
    return try interpret(outcome, stdout: received.stdout, stderr: received.stderr)
  }

  private func interpret(_ outcome: ProcessOutcome, stdout: [UInt8], stderr: [UInt8]) throws(ImagingError) -> [UInt8] {
    let exitCode: Int32
    switch outcome {
    case .exited(let code): exitCode = code
    case .signaled: throw .fetchFailed(url: url, reason: "curl was \(outcome)")
    }
    if exitCode == 63 { throw .responseTooLarge(url: url, limit: maxBytes) }
    var body = stdout
    var status = 0
    if let newline = body.lastIndex(of: 0x0A) {
      status = Int(String(decoding: body[(newline + 1)...], as: UTF8.self)) ?? 0
      body.removeSubrange(newline...)
    }
    if status >= 400 { throw .httpStatus(url: url, status: status) }
    guard exitCode == 0 else {
      if exitCode == 28 { throw .fetchFailed(url: url, reason: "timed out after \(timeout)") }
      var message = String(decoding: stderr, as: UTF8.self)
      while message.last?.isWhitespace == true { message.removeLast() }
      if message.hasPrefix("curl: ") { message.removeFirst(6) }
      throw .fetchFailed(
        url: url, reason: message.isEmpty ? "curl exited with status \(exitCode)" : message.lowercased())
    }
    if body.count > maxBytes { throw .responseTooLarge(url: url, limit: maxBytes) }
    return body
  }
}

/// Collects curl's stdout byte for byte up to a limit, and its stderr.
private final class DownloadSink: OutputLineSink {
  struct Received {
    var stdout: [UInt8] = []
    var stderr: [UInt8] = []
    var overflowed = false
    var overflow: (@Sendable () -> Void)?
  }

  let limit: Int
  private let state = Mutex(Received())

  init(limit: Int) { self.limit = limit }

  var received: Received { state.withLock { $0 } }

  /// Calls `action` once the body passes the limit (at once if it already has).
  func onOverflow(_ action: @escaping @Sendable () -> Void) {
    let now = state.withLock { received -> Bool in
      received.overflow = action
      return received.overflowed
    }
    if now { action() }
  }

  func receive(lines: OutputLines, stream: OutputStreamKind) { take(lines.bytes, stream: stream) }

  func receive(fragment: UnsafeRawBufferPointer, stream: OutputStreamKind) { take(fragment, stream: stream) }

  private func take(_ bytes: UnsafeRawBufferPointer, stream: OutputStreamKind) {
    let overflowNow = state.withLock { received -> (@Sendable () -> Void)? in
      if stream == .stderr {
        if received.stderr.count < 64 << 10 { received.stderr.append(contentsOf: bytes) }
        return nil
      }
      guard !received.overflowed else { return nil }
      received.stdout.append(contentsOf: bytes)
      guard received.stdout.count > limit else { return nil }
      received.overflowed = true
      received.stdout = []
      return received.overflow
    }
    overflowNow?()
  }
}
