import Foundation
import Glibc
import RunnerEvents
import RunnerProcess
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
      settings: ReportSettings(ci: .github), names: fixture.selection.graph.tasks.map(\.name),
      selection: fixture.selection, console: console)
    let reporter = try #require(reports.console as? GitHubActionsReporter)
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

  /// Runs `script` through a reporter for tasks a, b and c; returns what it wrote.
  func transcript(
    mode: ReportSettings.OutputMode = .prefixed, _ script: (GitHubActionsReporter) -> Void
  ) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("runner-gh-\(UUID().uuidString)").path
    let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
    #expect(fd >= 0)
    defer { unlink(path) }
    // A folder of its own: spools are named by task, and tests run side by side.
    let spools = FileManager.default.temporaryDirectory.appendingPathComponent("runner-gh-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: spools, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: spools) }
    let console = ConsoleReporter(
      names: ["a", "b", "c"], selected: [0, 1, 2], useColor: false, descriptor: fd, mode: mode,
      spoolDirectory: spools.path)
    script(GitHubActionsReporter(console: console, names: ["a", "b", "c"], spoolMemory: 0))
    close(fd)
    return try String(contentsOfFile: path, encoding: .utf8)
  }

  static func start(_ reporter: GitHubActionsReporter, _ task: Int) {
    reporter.record(RunEvent(time: .zero, task: task, kind: .state(.executing, attempt: 1, reason: nil)))
  }

  static func end(_ reporter: GitHubActionsReporter, _ task: Int) {
    reporter.record(RunEvent(time: .zero, task: task, kind: .state(.succeeded, attempt: 1, reason: nil)))
  }

  static func say(_ reporter: GitHubActionsReporter, _ task: Int, _ text: String) {
    var text = text + "\n"
    text.withUTF8 {
      reporter.output(task: task, stream: .stdout, lines: OutputLines(UnsafeRawBufferPointer($0)), time: .zero)
    }
  }

  /// At any concurrency each task's lines are in its own group: the live task's as they come,
  /// the others' held and written whole when the live group closes (ended ones first, then
  /// the next live task's, which then goes on live).
  @Test func groupsAtAnyConcurrency() throws {
    let text = try transcript { reporter in
      Self.start(reporter, 0)
      Self.start(reporter, 1)
      Self.say(reporter, 1, "b1")
      Self.say(reporter, 0, "a1")
      Self.end(reporter, 1)
      Self.start(reporter, 2)
      Self.say(reporter, 2, "c1")
      Self.say(reporter, 0, "a2")
      Self.end(reporter, 0)
      Self.say(reporter, 2, "c2")
      Self.end(reporter, 2)
    }
    #expect(
      text == """
        ::group::a
        a1
        a2
        ::endgroup::
        ✓ a
        ::group::b
        b1
        ::endgroup::
        ✓ b
        ::group::c
        c1
        c2
        ::endgroup::
        ✓ c

        """)
  }

  /// SIGINT or SIGTERM: what is held is written at once, every group closed; later lines come
  /// prefixed as they are read.
  @Test func anInterruptionWritesEverythingHeld() throws {
    let text = try transcript { reporter in
      Self.start(reporter, 0)
      Self.start(reporter, 1)
      Self.say(reporter, 0, "a1")
      Self.say(reporter, 1, "b1")
      reporter.interrupt()
      Self.say(reporter, 1, "b2")
    }
    #expect(text == "::group::a\na1\n::endgroup::\n::group::b\nb1\n::endgroup::\nb | b2\n")
  }

  /// What a task printed before it ran (waiting for a gate while another task was live) comes
  /// before its group when it becomes live, and is written at an interruption.
  @Test func heldLinesOfATaskNotYetRunningAreNotLost() throws {
    let text = try transcript { reporter in
      Self.start(reporter, 0)
      reporter.record(RunEvent(time: .zero, task: 1, kind: .waiting(gate: "file 'x'")))
      reporter.record(RunEvent(time: .zero, task: 2, kind: .waiting(gate: "file 'y'")))
      Self.end(reporter, 0)
      Self.start(reporter, 1)
      Self.say(reporter, 1, "b1")
      Self.end(reporter, 1)
      reporter.interrupt()
    }
    #expect(
      text
        == "::group::a\n::endgroup::\n✓ a\n… b waiting for file 'x'\n::group::b\nb1\n::endgroup::\n✓ b\n"
        + "… c waiting for file 'y'\n")
  }

  /// `--output quiet` under GitHub Actions: only a failed task's group is written.
  @Test func quietWritesOnlyFailedGroups() throws {
    let text = try transcript(mode: .quiet) { reporter in
      Self.start(reporter, 0)
      Self.start(reporter, 1)
      Self.say(reporter, 0, "a1")
      Self.say(reporter, 1, "b1")
      Self.end(reporter, 0)
      reporter.record(RunEvent(time: .zero, task: 1, kind: .state(.failed, attempt: 1, reason: "exit 1")))
    }
    #expect(text == "::group::b\nb1\n::endgroup::\n✗ b exit 1\n")
  }

  /// A task cannot stop runner's commands, open groups or set outputs; its own annotations
  /// (and masks) still work. The neutralised lines read the same, with a zero-width space.
  @Test func taskOutputCannotTakeOverTheLog() throws {
    let lines = [
      "::stop-commands::token", "  ::set-output name=x::y", "::endgroup::", "::error file=a.c,line=1::bad",
      "::Warning::w", "::add-mask::secret", "x ##[set-env name=A;]b", "plain :: text",
      "progress\r::stop-commands::tok", "\u{00A0}::set-env name=A::b", "no command: # : here",
    ]
    let text = try transcript { reporter in
      Self.start(reporter, 0)
      for line in lines { Self.say(reporter, 0, line) }
      Self.end(reporter, 0)
    }
    let zwsp = "\u{200B}"
    let expected = [
      "::group::a", "\(zwsp)::stop-commands::token", "  \(zwsp)::set-output name=x::y", "\(zwsp)::endgroup::",
      "::error file=a.c,line=1::bad", "::Warning::w", "::add-mask::secret", "x ##\(zwsp)[set-env name=A;]b",
      "plain :: text", "progress\r\(zwsp)::stop-commands::tok", "\u{00A0}\(zwsp)::set-env name=A::b",
      "no command: # : here", "::endgroup::",
      "✓ a",
    ]
    #expect(text == expected.joined(separator: "\n") + "\n")
  }

  /// A task a remote slot gives back (`ready`, "to run here: …") starts the same attempt again
  /// here: one `▶`, one group, in both the plain console and GitHub's.
  @Test func aTaskBackFromARemoteSlotIsAnnouncedOnce() throws {
    let back = RunEvent.Kind.state(.ready, attempt: 1, reason: "to run here: the executor is off")
    let github = try transcript { reporter in
      Self.start(reporter, 0)
      reporter.record(RunEvent(time: .zero, task: 0, kind: back))
      Self.start(reporter, 0)
      Self.say(reporter, 0, "a1")
      Self.end(reporter, 0)
    }
    #expect(github == "::group::a\na1\n::endgroup::\n✓ a\n", "\(github)")
    let console = try transcript { reporter in
      let plain = reporter.console
      for kind in [
        RunEvent.Kind.state(.executing, attempt: 1, reason: nil), back, .state(.executing, attempt: 1, reason: nil),
      ] {
        plain.record(RunEvent(time: .zero, task: 1, kind: kind))
      }
      plain.record(RunEvent(time: .zero, task: 1, kind: .state(.succeeded, attempt: 1, reason: nil)))
    }
    #expect(console == "▶ b\n✓ b\n", "\(console)")
  }
}
