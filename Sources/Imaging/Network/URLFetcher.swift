import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Downloads a URL by running the system's `curl` as a child process.
///
/// curl brings HTTPS, redirects, proxies and timeouts that a hand-written client would
/// have to re-create; running the binary (rather than linking libcurl) needs no new
/// build dependency. The body arrives on a pipe; `-w` appends the final status code
/// after it, so HTTP errors are reported with their code.
///
/// - Parameters:
///   - url: an `http://` or `https://` URL; redirects are followed (at most 10, http/https only).
///   - timeout: the whole transfer's time limit.
///   - maxBytes: the largest body accepted.
/// - Returns: the response body.
/// - Throws: `ImagingError.httpStatus` for a status ≥ 400, `.responseTooLarge`, or
///   `.fetchFailed` (bad URL, network failure, timeout, missing curl, cancellation).
public func fetch(url: String, timeout: Duration, maxBytes: Int) async throws(ImagingError) -> [UInt8] {
  try await URLFetcher(url: url, timeout: timeout, maxBytes: maxBytes).run()
}

struct URLFetcher: Sendable {
  let url: String
  let timeout: Duration
  let maxBytes: Int

  /// Bytes we allow past `maxBytes` on the pipe: the "\n<status>" trailer.
  private static let trailerAllowance = 16

  func run() async throws(ImagingError) -> [UInt8] {
    let lowered = url.lowercased()
    guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
      throw .fetchFailed(url: url, reason: "only http:// and https:// urls are supported")
    }
    if Task.isCancelled { throw .fetchFailed(url: url, reason: "cancelled") }
    let child = try spawnCurl()
    let state = ChildControl()
    let limit = maxBytes + Self.trailerAllowance
    let outcome: Outcome = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
          continuation.resume(returning: Self.collect(child, limit: limit, state: state))
        }
      }
    } onCancel: {
      state.lock.withLock { current in
        if current == .running {
          kill(child.pid, SIGKILL)
          current = .killed
        }
      }
    }
    return try interpret(outcome, cancelled: state.lock.withLock { $0 == .killed })
  }

  private enum ChildState: Sendable, Equatable {
    case running, killed, reaped
  }

  /// Guards against signalling a pid after it has been reaped (and possibly reused).
  private final class ChildControl: Sendable {
    let lock = Mutex(ChildState.running)
  }

  private struct Child: Sendable {
    let pid: pid_t
    let stdout: Int32
    let stderr: Int32
  }

  private struct Outcome: Sendable {
    var stdout: [UInt8] = []
    var stderr: [UInt8] = []
    var exitCode: Int32 = -1
    var overLimit = false
  }

  private func spawnCurl() throws(ImagingError) -> Child {
    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    let arguments = [
      "curl", "-q", "--silent", "--show-error", "--location", "--max-redirs", "10",
      "--proto", "=http,https", "--proto-redir", "=http,https",
      "--max-time", String(max(seconds, 0.001)), "--max-filesize", String(maxBytes),
      "--output", "-", "--write-out", "\n%{http_code}", "--url", url,
    ]
    var outPipe: [Int32] = [-1, -1]
    var errPipe: [Int32] = [-1, -1]
    guard Self.makePipe(&outPipe) else { throw .fetchFailed(url: url, reason: FileIO.errnoText()) }
    guard Self.makePipe(&errPipe) else {
      close(outPipe[0])
      close(outPipe[1])
      throw .fetchFailed(url: url, reason: FileIO.errnoText())
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    // curl must not inherit runner's blocked signals or ignored SIGPIPE/SIGINT/SIGTERM.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for number in [SIGPIPE, SIGINT, SIGTERM, SIGQUIT] { sigaddset(&defaults, number) }
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let status = posix_spawnp(&pid, "curl", &actions, &attributes, &argv, environ)
    close(outPipe[1])
    close(errPipe[1])
    guard status == 0 else {
      close(outPipe[0])
      close(errPipe[0])
      let reason = status == ENOENT ? "curl is not installed (apt-get install curl)" : FileIO.errnoText(status)
      throw .fetchFailed(url: url, reason: "cannot run curl: \(reason)")
    }
    return Child(pid: pid, stdout: outPipe[0], stderr: errPipe[0])
  }

  /// pipe2 needs _GNU_SOURCE, which Glibc's module does not set; close-on-exec keeps other
  /// children spawned concurrently from inheriting our ends.
  private static func makePipe(_ ends: inout [Int32]) -> Bool {
    guard pipe(&ends) == 0 else { return false }
    _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
    return true
  }

  /// Reads both pipes to the end (killing curl past `limit` bytes), then reaps it. Blocks.
  private static func collect(_ child: Child, limit: Int, state: ChildControl) -> Outcome {
    var outcome = Outcome()
    var fds = [
      pollfd(fd: child.stdout, events: Int16(POLLIN), revents: 0),
      pollfd(fd: child.stderr, events: Int16(POLLIN), revents: 0),
    ]
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    var open = 2
    while open > 0 {
      if poll(&fds, 2, -1) < 0 {
        if errno == EINTR { continue }
        break
      }
      for index in 0..<2 where fds[index].fd >= 0 && fds[index].revents != 0 {
        let count = chunk.withUnsafeMutableBytes { read(fds[index].fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 {
          close(fds[index].fd)
          fds[index].fd = -1
          open -= 1
          continue
        }
        if index == 0 {
          outcome.stdout.append(contentsOf: chunk[0..<count])
          if outcome.stdout.count > limit && !outcome.overLimit {
            outcome.overLimit = true
            state.lock.withLock { current in
              if current == .running { kill(child.pid, SIGKILL) }
            }
          }
        } else if outcome.stderr.count < 4096 {
          outcome.stderr.append(contentsOf: chunk[0..<count])
        }
      }
    }
    state.lock.withLock { current in
      var status: Int32 = 0
      while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
      current = current == .killed ? .killed : .reaped
      // WIFEXITED / WEXITSTATUS are macros; decode by hand.
      outcome.exitCode = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
    }
    return outcome
  }

  private func interpret(_ outcome: Outcome, cancelled: Bool) throws(ImagingError) -> [UInt8] {
    if cancelled { throw .fetchFailed(url: url, reason: "cancelled") }
    if outcome.overLimit || outcome.exitCode == 63 { throw .responseTooLarge(url: url, limit: maxBytes) }
    var body = outcome.stdout
    var status = 0
    if let newline = body.lastIndex(of: 0x0A) {
      status = Int(String(decoding: body[(newline + 1)...], as: UTF8.self)) ?? 0
      body.removeSubrange(newline...)
    }
    if status >= 400 { throw .httpStatus(url: url, status: status) }
    guard outcome.exitCode == 0 else {
      if outcome.exitCode == 28 { throw .fetchFailed(url: url, reason: "timed out after \(timeout)") }
      var message = String(decoding: outcome.stderr, as: UTF8.self)
      while message.last?.isWhitespace == true { message.removeLast() }
      if message.hasPrefix("curl: ") { message.removeFirst(6) }
      throw .fetchFailed(
        url: url, reason: message.isEmpty ? "curl exited with status \(outcome.exitCode)" : message.lowercased())
    }
    if body.count > maxBytes { throw .responseTooLarge(url: url, limit: maxBytes) }
    return body
  }
}
