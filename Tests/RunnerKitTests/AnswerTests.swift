import Foundation
import Testing

@testable import RunnerKit

/// The façade's commands that run nothing hand back what they would say, and say nothing
/// themselves: the executable prints the answer.
@Suite struct AnswerTests {
  let directory: String

  init() throws {
    directory = NSTemporaryDirectory() + "runner-answer-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let text = """
      tasks:
        build: { desc: Builds it, run: 'true', sources: [a.c], outputs: [a.o] }
        test: { deps: [build], run: 'true' }

      """
    try text.write(toFile: directory + "/tasks.yml", atomically: true, encoding: .utf8)
  }

  func runner(_ targets: [String] = [], reports: ReportSettings = ReportSettings()) -> Runner {
    Runner(RunOptions(taskFile: directory + "/tasks.yml", targets: targets, reports: reports))
  }

  @Test func listAndDescribeAnswerWithText() {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let list = runner().list(json: false)
    #expect(list.exitCode == 0)
    #expect(list.text.contains("build") && list.text.contains("Builds it"), "\(list.text)")
    #expect(list.errors.isEmpty)
    let described = runner().describe("test")
    #expect(described.exitCode == 0)
    #expect(described.text.contains("build"), "\(described.text)")
  }

  /// The command line's answers are written as they are made, past 1 MiB: `--graph tree` of a
  /// million tasks is a gigabyte that was held whole.
  @Test func aStreamingAnswerWritesItsOutputInPieces() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/streamed"
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    #expect(descriptor >= 0)
    var answer = Answer(streamingTo: descriptor)
    let line = String(repeating: "x", count: 99) + "\n"
    for _ in 0..<30_000 { answer.say(line) }
    close(descriptor)
    let written = try #require(FileManager.default.contents(atPath: path))
    #expect(answer.wroteOutput)
    #expect(answer.output.count < Answer.piece)
    #expect(written.count + answer.output.count == 3_000_000)
    #expect(written.count % 100 == 0 && written.allSatisfy { $0 == UInt8(ascii: "x") || $0 == 10 })
    // Not streaming (a test, a host): all of it stays in the answer.
    var kept = Answer()
    for _ in 0..<30_000 { kept.say(line) }
    #expect(kept.output.count == 3_000_000 && !kept.wroteOutput)
  }

  @Test func anUnknownTaskIsAnErrorInTheAnswer() {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let answer = runner().describe("tset")
    #expect(answer.exitCode == 2)
    #expect(answer.output.isEmpty)
    #expect(answer.errors.contains("no task named 'tset'") && answer.errors.contains("test"), "\(answer.errors)")
  }

  /// A broken file: the error with its place, and on GitHub Actions the annotation as output.
  @Test func aBrokenFileIsAnsweredWithItsPlace() async throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try "tasks:\n  build: [\n".write(toFile: directory + "/tasks.yml", atomically: true, encoding: .utf8)
    let plain = runner().list(json: false)
    #expect(plain.exitCode == 2)
    #expect(plain.output.isEmpty)
    #expect(plain.errors.contains("tasks.yml:"), "\(plain.errors)")
    let answer = await runner(reports: ReportSettings(ci: .github, workspace: directory)).dryRun()
    #expect(answer.exitCode == 2)
    #expect(answer.text.hasPrefix("::error file=tasks.yml,line="), "\(answer.text)")
  }

  /// The plan reads the state: a state it cannot use is a warning in the answer, not a line
  /// the entry point writes.
  @Test func aDamagedStateIsAWarningInTheAnswer() async throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try FileManager.default.createDirectory(atPath: directory + "/.runner", withIntermediateDirectories: true)
    try "runner-state 1\nnot a record\n".write(toFile: directory + "/.runner/state", atomically: true, encoding: .utf8)
    let plan = await runner(["test"]).dryRun()
    #expect(plan.exitCode == 0)
    #expect(plan.errors.contains("warning:") && plan.errors.contains("incremental state"), "\(plan.errors)")
    #expect(plan.text.contains("build"))
  }

  @Test func aDryRunAndAGraphAnswerWithThePlan() async {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let plan = await runner(["test"]).dryRun()
    #expect(plan.exitCode == 0, "\(plan.errors)")
    #expect(plan.text.contains("build") && plan.text.contains("test"), "\(plan.text)")
    let tree = await runner(["test"]).graph(.tree)
    #expect(tree.exitCode == 0)
    #expect(tree.text.contains("build"), "\(tree.text)")
    let explained = await runner().explain("test")
    #expect(explained.exitCode == 0)
    #expect(explained.text.contains("no sources"), "\(explained.text)")
  }
}
