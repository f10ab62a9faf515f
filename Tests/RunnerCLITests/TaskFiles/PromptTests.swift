import Foundation
import Testing

/// `prompt`: a question asked at the terminal before the run; `--yes` answers it; with no
/// terminal the task fails and says why. The terminal is a real one (`script` gives runner a
/// pseudo-terminal).
@Suite struct PromptTests {
  static let tasks = """
    tasks:
      build: echo built >> log
      release: { deps: [build], prompt: Push the tag to origin?, run: echo released >> log }
    """

  @Test func withoutATerminalThePromptedTaskFailsAndSaysWhy() throws {
    let project = try TaskFileProject(Self.tasks)
    defer { project.remove() }
    let output = try project.run("release")
    #expect(output.status == 1)
    #expect(
      (output.stdout + output.stderr).contains(
        "prompt 'Push the tag to origin?' needs an answer and there is no terminal: run with --yes"),
      "\(output.stdout)\(output.stderr)")
    #expect(project.read("log") == "built\n")
    _ = try project.shell("rm log")
    let yes = try project.run("--yes", "release")
    #expect(yes.status == 0, "\(yes.stderr)")
    #expect(project.read("log") == "built\nreleased\n")
  }

  @Test(arguments: [("y", "built\nreleased\n", "status=0"), ("n", "built\n", "status=1")])
  func anAnswerAtTheTerminalDecides(answer: String, log: String, status: String) throws {
    let project = try TaskFileProject(Self.tasks)
    defer { project.remove() }
    let report = try project.shell(
      """
      (sleep 1; printf '\(answer)\\r') | script -qec '"$RUNNER" release; echo "status=$?" > status.txt' /dev/null > out.txt
      cat status.txt
      """)
    let out = project.read("out.txt") ?? ""
    #expect(out.contains("? release: Push the tag to origin? [y/N]"), "\(out)")
    #expect(report.contains(status), "\(report) \(out)")
    #expect(project.read("log") == log, "\(out)")
  }
}
