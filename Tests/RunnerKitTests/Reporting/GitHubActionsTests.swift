import Foundation
import Glibc
import Testing

@testable import RunnerBasics
@testable import RunnerExecution
@testable import RunnerKit
@testable import RunnerModel
@testable import RunnerReporting

@Suite struct GitHubActionsTests {
  @Test func escapesDataAndProperties() {
    let annotation = GitHubAnnotation(
      .error, "100% broken\r\nsecond: line", title: "a, b: c",
      at: RunnerModel.SourceLocation(file: "/work/repo/ci/tasks.yml", line: 3, column: 5))
    #expect(
      annotation.command(workspace: "/work/repo")
        == "::error file=ci/tasks.yml,line=3,col=5,title=a%2C b%3A c::100%25 broken%0D%0Asecond: line\n")
    #expect(GitHubAnnotation(.warning, "x").command() == "::warning::x\n")
  }

  @Test func diagnosticsBecomeAnnotationsWithTheirNotes() {
    let diagnostic = Diagnostic(
      .error, "task 'build' depends on 'biuld'", at: RunnerModel.SourceLocation(file: "tasks.yml", line: 4, column: 12),
      notes: [.note("did you mean 'build'?")])
    #expect(
      GitHubAnnotation(diagnostic).command()
        == "::error file=tasks.yml,line=4,col=12,title=task file error::task 'build' depends on 'biuld'%0Anote: did you mean 'build'?\n"
    )
  }

  @Test func detection() {
    #expect(ReportSettings.detect(ci: nil, environment: [:]).ci == .none)
    let detected = ReportSettings.detect(
      ci: nil, environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": "/tmp/s.md"])
    #expect(detected.ci == .github && detected.stepSummaryPath == "/tmp/s.md")
    #expect(ReportSettings.detect(ci: ReportSettings.CI.none, environment: ["GITHUB_ACTIONS": "true"]).ci == .none)
    #expect(ReportSettings.detect(ci: .github, environment: [:]).ci == .github)
  }

  /// The console a GitHub job shows at -j1: one group per attempt, then the annotations.
  @Test func groupedLogAndAnnotations() throws {
    let fixture = try ReportFixture()
    let graph = fixture.selection.graph
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("runner-gh-\(getpid()).txt").path
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    #expect(fd >= 0)
    defer { unlink(path) }
    let console = ConsoleReporter(
      names: graph.tasks.map(\.name), selected: fixture.selection.members, useColor: false, descriptor: fd)
    let reports = RunReports(
      settings: ReportSettings(ci: .github), selection: fixture.selection, console: console, concurrency: 1)
    let reporter = try #require(reports.console as? GitHubActionsReporter)
    #expect(reporter.grouped)
    // A -j1 run: one task at a time.
    let index = { (name: String) in graph.index(of: name)! }
    let script: [(String, RunEvent.Kind)] = [
      ("version", .state(.executing, attempt: 1, reason: nil)),
      ("version", .state(.succeeded, attempt: 1, reason: "5ms")),
      ("test", .state(.executing, attempt: 1, reason: nil)),
      ("test", .retrying(attempt: 2, after: .milliseconds(500), reason: "'make test' failed with exit code 2")),
      ("test", .state(.executing, attempt: 2, reason: nil)),
      ("test", .state(.failed, attempt: 2, reason: "'make test' failed with exit code 2 (1.20s)")),
      ("package", .state(.skipped, attempt: 1, reason: "'test' failed")),
    ]
    for (name, kind) in script {
      let event = RunEvent(time: .zero, task: index(name), kind: kind)
      reporter.record(event)
      if case .state(.executing, let attempt, _) = kind {
        for line in ["\(name) attempt \(attempt)", "::warning::a tool's own annotation passes through"] {
          var line = line + "\n"
          line.withUTF8 {
            reporter.output(
              task: index(name), stream: .stdout, lines: OutputLines(UnsafeRawBufferPointer($0)), time: .zero)
          }
        }
      }
    }
    Terminal.write(reports.annotations(fixture.summary).map { $0.command() }.joined(), to: fd)
    close(fd)
    try ReportFixture.expectGolden(try String(contentsOfFile: path, encoding: .utf8), "github-grouped.txt")
  }

  @Test func concurrentRunsKeepPrefixedLines() throws {
    let fixture = try ReportFixture()
    let console = ConsoleReporter(names: ["a"], selected: [0], useColor: false, descriptor: -1)
    let reports = RunReports(
      settings: ReportSettings(ci: .github), selection: fixture.selection, console: console, concurrency: 4)
    #expect((reports.console as? GitHubActionsReporter)?.grouped == false)
  }
}
