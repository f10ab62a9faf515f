import Foundation
import Testing

/// A remote cache's address as people write it, and a server that trickles: a password and a
/// signed query in the address reach the server and never the console; a body sent a byte at a
/// time is dropped at the timeout.
@Suite struct RemoteAddressTests {
  static let deadline = Duration.seconds(120)

  static let graph = """
    tasks:
      a: { sources: [in.txt], outputs: [out.txt], run: cp in.txt out.txt }
    """

  @Test(
    .enabled(
      if: ProcessInfo.processInfo.environment["RUNNER_TEST_BASIC_CACHE"] != nil,
      "no nginx named (.ci/remote-servers.sh start DIR)"))
  func aPasswordAndAQueryInTheAddressReachTheServer() throws {
    let url = ProcessInfo.processInfo.environment["RUNNER_TEST_BASIC_CACHE"]!
    let seed = UUID().uuidString
    let (first, second) = (try TaskFileProject(Self.graph), try TaskFileProject(Self.graph))
    defer { first.remove() }
    defer { second.remove() }
    try first.write("in.txt", seed)
    try second.write("in.txt", seed)
    let stored = try BinaryRunner.run(["--remote-cache", url, "a"], in: first.directory, deadline: Self.deadline)
    #expect(stored.status == 0 && stored.stderr.contains("1 stored"), "\(stored.stderr)")
    let restored = try BinaryRunner.run(["--remote-cache", url, "a"], in: second.directory, deadline: Self.deadline)
    #expect(restored.stderr.contains("1 hit, 0 misses"), "\(restored.stderr)")
    #expect(second.read("out.txt") == seed)
    for output in [stored, restored] {
      #expect(!(output.stdout + output.stderr).contains("test-pass") && !output.stderr.contains("signed"))
    }
    // Without the password: 401, a warning, and a correct build.
    let bare = url.replacingOccurrences(of: "runner:test-pass@", with: "")
    try first.write("in.txt", seed + "2")
    let refused = try BinaryRunner.run(["--remote-cache", bare, "a"], in: first.directory, deadline: Self.deadline)
    #expect(refused.status == 0 && refused.stderr.contains("401"), "\(refused.stderr)")
  }

  @Test func aBodySentAByteAtATimeIsDroppedAtTheTimeout() throws {
    let server = try LoopbackServer(
      serving: """
        import time
        def serve(c):
            try:
                c.recv(65536)
                c.sendall(b'HTTP/1.1 200 OK\\r\\nContent-Length: 1000000\\r\\n\\r\\n')
                while True:
                    c.sendall(b'x'); time.sleep(0.5)
            except OSError:
                pass
        """)
    defer { server.stop() }
    let port = server.port
    let project = try TaskFileProject(Self.graph)
    defer { project.remove() }
    try project.write("in.txt", "x")
    let output = try BinaryRunner.run(
      ["--remote-cache", "http://127.0.0.1:\(port)/c", "--remote-timeout", "2s", "a"], in: project.directory,
      deadline: .seconds(40))
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stderr.contains("timed out after 2"), "\(output.stderr)")
    #expect(project.read("out.txt") == "x")
  }

  /// A task whose upload an interrupt cut short is not left up to date and never uploaded: the
  /// next run, which finds it up to date, uploads it; the one after has nothing to upload.
  @Test func anUploadCutShortIsDoneByTheNextRun() throws {
    let project = try TaskFileProject(Self.graph)
    defer { project.remove() }
    try project.write("in.txt", "x")
    // GET: 404 at once. PUT: 201 at once, or never an answer while the file 'hang' exists.
    let server = try LoopbackServer(
      serving: """
        import os
        def serve(c):
            try:
                data = b''
                while b'\\r\\n\\r\\n' not in data:
                    chunk = c.recv(65536)
                    if not chunk: return
                    data += chunk
                head = data.split(b'\\r\\n')[0].decode()
                with open('server.log', 'a') as log: log.write(head + '\\n')
                if head.startswith('PUT') and os.path.exists('hang'):
                    threading.Event().wait()
                if head.startswith('PUT'):
                    length = int([l for l in data.decode(errors='replace').split('\\r\\n') if l.lower().startswith('content-length:')][0].split(':')[1])
                    body = data.split(b'\\r\\n\\r\\n', 1)[1]
                    while len(body) < length: body += c.recv(65536)
                    c.sendall(b'HTTP/1.1 201 Created\\r\\nContent-Length: 0\\r\\n\\r\\n')
                else:
                    c.sendall(b'HTTP/1.1 404 Not Found\\r\\nContent-Length: 0\\r\\n\\r\\n')
                serve(c)
            except OSError:
                pass
        """, in: project.directory)
    defer { server.stop() }
    let port = server.port
    let url = "http://127.0.0.1:\(port)/c"
    try project.write("hang", "")
    let first = Process()
    first.executableURL = BinaryRunner.executable
    first.arguments = ["--remote-cache", url, "--remote-timeout", "60s", "a"]
    first.currentDirectoryURL = project.directory
    first.standardOutput = FileHandle.nullDevice
    first.standardError = FileHandle.nullDevice
    try first.run()
    let limit = ContinuousClock.now + Self.deadline
    while !(project.read("server.log") ?? "").contains("PUT"), ContinuousClock.now < limit {
      usleep(20_000)  // waiting for the upload to start, not moving a clock
    }
    #expect(project.read("server.log")?.contains("PUT") == true, "the upload started")
    kill(first.processIdentifier, SIGINT)
    first.waitUntilExit()
    #expect(first.terminationStatus == 130)
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("hang"))
    try project.write("server.log", "")
    let second = try BinaryRunner.run(["--remote-cache", url, "a"], in: project.directory, deadline: Self.deadline)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(second.stdout.contains("up to date"), "not run again: \(second.stdout)")
    #expect(second.stderr.contains("1 stored"), "the next run uploads it: \(second.stderr)")
    #expect(project.read("server.log")?.contains("PUT /c/ac/") == true, "\(project.read("server.log") ?? "")")
    try project.write("server.log", "")
    let third = try BinaryRunner.run(["--remote-cache", url, "a"], in: project.directory, deadline: Self.deadline)
    #expect(third.status == 0 && !(project.read("server.log") ?? "").contains("PUT"), "\(third.stderr)")
  }
}

/// A Python HTTP server on a free loopback port: the script's `serve(c)` answers each
/// connection, on a thread of its own.
struct LoopbackServer {
  let process = Process()
  let port: String

  init(serving script: String, in directory: URL? = nil) throws {
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", "-c",
      """
      import socket, threading
      \(script)
      s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(16)
      print(s.getsockname()[1], flush=True)
      while True:
          c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
      """,
    ]
    process.currentDirectoryURL = directory
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    port = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// SIGKILL: a process Foundation starts may have SIGTERM blocked.
  func stop() { kill(process.processIdentifier, SIGKILL) }
}
