import Foundation
import RunnerEvents
import Testing

@testable import RunnerExecution
@testable import RunnerKit
@testable import RunnerModel
@testable import RunnerReporting

/// A scripted run with fixed times, so reports can be compared with golden files: six
/// tasks at -j2, a retried failure, a skipped dependent.
struct ReportFixture {
  static let yaml = """
    tasks:
      version: echo v1
      lint: echo lint
      build:
        deps: [version]
        run: make
      docs:
        deps: [version]
        run: make docs
      test:
        deps: [build]
        run: make test
        retries: 1
      package:
        deps: [test, lint]
        run: tar czf app.tgz app

    """

  /// Kept with the CLI fixtures (a folder without `args`, so GoldenTests skips it): the
  /// RunnerKitTests target declares no resources.
  static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("RunnerCLITests/Fixtures/reports")

  let selection: GraphSelection
  let events: [RunEvent]
  let summary: RunSummary

  init() throws {
    let graph = try TaskFileLoader().load(bytes: Array(Self.yaml.utf8), path: "ci/tasks.yml")
    selection = GraphSelection(graph: graph, targets: [])
    let index = { (name: String) in graph.index(of: name)! }
    var events: [RunEvent] = []
    func at(_ ms: Int, _ task: String?, _ kind: RunEvent.Kind) {
      events.append(RunEvent(time: .milliseconds(ms), task: task.map(index), kind: kind))
    }
    at(0, nil, .runStarted(tasks: 6, concurrency: 2))
    at(1, "version", .state(.executing, attempt: 1, reason: nil))
    at(1, "lint", .state(.executing, attempt: 1, reason: nil))
    at(101, "version", .exited(.exited(0)))
    at(101, "version", .state(.succeeded, attempt: 1, reason: "100ms"))
    at(102, "build", .state(.executing, attempt: 1, reason: nil))
    at(401, "lint", .exited(.exited(0)))
    at(401, "lint", .state(.succeeded, attempt: 1, reason: "400ms"))
    at(402, "docs", .state(.executing, attempt: 1, reason: nil))
    at(902, "docs", .exited(.exited(0)))
    at(902, "docs", .state(.succeeded, attempt: 1, reason: "500ms"))
    at(1102, "build", .exited(.exited(0)))
    at(1102, "build", .state(.succeeded, attempt: 1, reason: "1.00s"))
    at(1103, "test", .state(.executing, attempt: 1, reason: nil))
    at(1500, "test", .exited(.exited(2)))
    at(1500, "test", .retrying(attempt: 2, after: .milliseconds(500), reason: "'make test' failed with exit code 2"))
    at(2000, "test", .state(.executing, attempt: 2, reason: nil))
    at(2300, "test", .exited(.exited(2)))
    at(2300, "test", .state(.failed, attempt: 2, reason: "'make test' failed with exit code 2 (1.20s)"))
    at(2300, "package", .state(.skipped, attempt: 1, reason: "'test' failed"))
    var summary = RunSummary()
    summary.counts = [.succeeded: 4, .failed: 1, .skipped: 1]
    summary.failures = [
      RunSummary.Failure(
        task: index("test"), reason: .command("make test", .exited(2)),
        tail: ["FAIL: testParse (0.01s)", "expected <1> & got <2> | `x`"])
    ]
    summary.duration = .milliseconds(2310)
    at(2310, nil, .runFinished(summary))
    self.events = events
    self.summary = summary
  }

  var record: RunRecord {
    var record = RunRecord()
    for event in events { record.apply(event) }
    return record
  }

  /// Compares with `Golden/NAME`; `UPDATE_GOLDEN=1` rewrites it.
  static func expectGolden(_ text: String, _ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation)
    throws
  {
    let url = golden.appendingPathComponent(name)
    if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
      try text.write(to: url, atomically: true, encoding: .utf8)
      return
    }
    let expected = try String(contentsOf: url, encoding: .utf8)
    #expect(text == expected, "\(name) differs from its golden file", sourceLocation: sourceLocation)
  }

  /// Runs python3 with a script and the text on stdin; returns its status and output.
  static func python(_ script: String, input: String) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script]
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stdout
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let data = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }
}
