import Foundation
import Testing

/// `--otel` and `OTEL_EXPORTER_OTLP_ENDPOINT`: a run sent as one OpenTelemetry trace, received
/// on 127.0.0.1 and decoded with the official `opentelemetry-proto` messages (PyPI), which
/// `.ci/run` installs into the Python named by RUNNER_TEST_PYTHON.
@Suite(.serialized) struct TelemetryTests {
  static let python: String? = {
    guard let python = ProcessInfo.processInfo.environment["RUNNER_TEST_PYTHON"] else { return nil }
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: python)
    probe.arguments = ["-c", "import opentelemetry.proto.collector.trace.v1.trace_service_pb2"]
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return nil }
    probe.waitUntilExit()
    return probe.terminationStatus == 0 ? python : nil
  }()

  /// The receiver script, listening on a free port until stopped.
  final class Receiver {
    let process = Process()
    let port: Int
    let out: URL

    init(in directory: URL, silent: Bool = false) throws {
      let script = BinaryRunner.packageRoot.appendingPathComponent("Tests/RunnerCLITests/Telemetry/otlp_receiver.py")
      let portFile = directory.appendingPathComponent("receiver.port")
      out = directory.appendingPathComponent("spans.jsonl")
      process.executableURL = URL(fileURLWithPath: TelemetryTests.python!)
      process.arguments = [script.path, portFile.path, out.path] + (silent ? ["--silent"] : [])
      try process.run()
      // The script writes the file once it listens (renamed into place whole).
      var found: Int?
      for _ in 0..<400 where found == nil {
        found = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { Int($0) }
        if found == nil { usleep(25_000) }
      }
      port = try #require(found, "the receiver did not start")
    }

    var spans: [[String: Any]] {
      ((try? String(contentsOf: out, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
    }

    /// SIGKILL: a process Foundation starts may have SIGTERM blocked.
    func stop() {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  @Test(.enabled(if: python != nil, "opentelemetry-proto is not installed (RUNNER_TEST_PYTHON names a Python with it)"))
  func aRunIsOneTraceAndARunATaskStartsNestsUnderItsSpan() throws {
    let project = try TaskFileProject(
      """
      secrets: [TOKEN]
      tasks:
        prep: echo prep
        outer:
          deps: [prep]
          run: '"$RUNNER_BIN" -f sub/inner.yml child'
        broken:
          params: { token: { default: none } }
          run: exit 3
      """)
    defer { project.remove() }
    // In a directory of its own: a runner a task starts may not share its starter's state.
    try project.write("sub/inner.yml", "tasks:\n  child: echo \"child $TRACEPARENT\"\n")
    let receiver = try Receiver(in: project.directory)
    defer { receiver.stop() }
    let output = try project.run(
      ["-k", "-j", "1", "outer", "broken", "token=s3cr3t-value"],
      environment: [
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(receiver.port)", "OTEL_SERVICE_NAME": "ci",
        "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20abc", "RUNNER_BIN": BinaryRunner.executable.path,
        "TOKEN": "s3cr3t-value",
      ])
    #expect(output.status == 1, "\(output.stderr)")
    #expect(!output.stderr.contains("OpenTelemetry"), "\(output.stderr)")
    let spans = receiver.spans
    let byName = Dictionary(spans.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    // One trace: the outer run, its tasks, and the run `outer` started with its task.
    #expect(Set(spans.compactMap { $0["trace_id"] as? String }).count == 1, "\(spans)")
    let roots = spans.filter { ($0["name"] as? String)?.hasPrefix("runner ") == true }
    #expect(roots.count == 2, "\(spans)")
    let outerRun = try #require(roots.first { ($0["parent"] as? String) == "" })
    let outer = try #require(byName["outer"])
    let innerRun = try #require(roots.first { ($0["parent"] as? String) == (outer["span_id"] as? String) })
    #expect((outer["parent"] as? String) == (outerRun["span_id"] as? String))
    #expect((byName["child"]?["parent"] as? String) == (innerRun["span_id"] as? String))
    // The child printed the TRACEPARENT of its own span.
    let child = try #require(byName["child"])
    let traceparent = "00-\(child["trace_id"] as? String ?? "")-\(child["span_id"] as? String ?? "")-01"
    #expect(output.stdout.contains("child \(traceparent)"), "\(output.stdout)")
    // A failure is an error status with its exit code; attributes say what happened.
    let broken = try #require(spans.first { ($0["name"] as? String)?.hasPrefix("broken") == true })
    #expect(broken["status"] as? Int == 2)
    #expect((broken["attributes"] as? [String: Any])?["process.exit.code"] as? Int == 3)
    #expect((byName["prep"]?["attributes"] as? [String: Any])?["runner.state"] as? String == "succeeded")
    #expect(outerRun["status"] as? Int == 2)
    #expect(spans.allSatisfy { $0["service"] as? String == "ci" || $0["service"] as? String == "runner" })
    #expect(outerRun["path"] as? String == "/v1/traces")
    #expect(outerRun["content_type"] as? String == "application/x-protobuf")
    #expect(outerRun["authorization"] as? String == "Bearer abc")
    #expect(((outerRun["end"] as? Int) ?? 0) >= ((outerRun["start"] as? Int) ?? 1))
    // The secret never reaches the collector.
    let received = (try? String(contentsOf: receiver.out, encoding: .utf8)) ?? ""
    #expect(!received.contains("s3cr3t-value") && received.contains("broken"), "\(received)")
  }

  /// A collector that refuses the connection, or takes it and never answers, costs the run a
  /// warning and at most the timeout; the run's outcome is its own.
  @Test(.enabled(if: python != nil, "opentelemetry-proto is not installed (RUNNER_TEST_PYTHON names a Python with it)"))
  func aCollectorThatIsDownOrSilentCostsOneWarning() throws {
    let project = try TaskFileProject("tasks:\n  build: echo built\n")
    defer { project.remove() }
    let silent = try Receiver(in: project.directory, silent: true)
    defer { silent.stop() }
    let other = project.directory.appendingPathComponent("closed")
    try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
    let closed = try Receiver(in: other, silent: true)
    closed.stop()
    for (endpoint, why) in [
      ("http://127.0.0.1:\(silent.port)", "no answer in time"),
      ("http://user:pa55word@127.0.0.1:\(closed.port)/?key=k3y", "connection refused"),
    ] {
      let output = try project.run(
        ["build"], environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_TIMEOUT": "300"])
      #expect(output.status == 0, "\(output.stderr)")
      let warnings = output.stderr.split(separator: "\n").filter { $0.contains("warning: OpenTelemetry") }
      #expect(warnings.count == 1, "\(output.stderr)")
      #expect(warnings.first?.contains(why) == true, "\(output.stderr)")
      #expect(!output.stderr.contains("pa55word") && !output.stderr.contains("k3y"), "\(output.stderr)")
    }
  }
}
