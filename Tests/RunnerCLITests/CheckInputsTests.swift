import Foundation
import Testing

/// `runner --check-inputs` through the built binary: the selected tasks run traced, and each
/// task's undeclared reads and writes are reported with its place and the pattern to add.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "needs Linux"))
struct CheckInputsTests {
  static let tasks = """
    tasks:
      gen:
        run: |
          cat src/a.txt inc/h.txt > out/a.txt
          echo scratch > out/tmp.txt && rm out/tmp.txt
        sources: [src/a.txt]
        outputs: [out/a.txt]
      use:
        deps: [gen]
        run: cat out/a.txt > out/use.txt && echo log > out/use.log
        sources: [tasks.yml]
        outputs: [out/use.txt]
      plain:
        run: cat inc/h.txt

    """

  func project(_ tasks: String = Self.tasks) throws -> TaskFileProject {
    let project = try TaskFileProject(tasks)
    try project.write("src/a.txt", "a\n")
    try project.write("inc/h.txt", "h\n")
    try project.write("out/.keep", "")
    return project
  }

  @Test func aTaskMissingAGlobIsReportedWithThePatternToAdd() throws {
    let project = try project()
    defer { project.remove() }
    let output = try project.run("--check-inputs", "use", "plain")
    #expect(output.status == 1, "\(output.stdout)\(output.stderr)")
    let text = output.stdout
    #expect(text.contains("tasks.yml:2:3: task 'gen' reads 1 file its sources do not cover:\n  inc/h.txt\n"), "\(text)")
    #expect(text.contains("  add to its sources: \"inc/*.txt\"\n"))
    #expect(!text.contains("out/tmp.txt"), "a file the task removed is not an output")
    #expect(!text.contains("'use' reads"), "what a dependency declares as output is declared")
    #expect(text.contains("tasks.yml:8:3: task 'use' writes 1 file its outputs do not declare:\n  out/use.log\n"))
    #expect(text.contains("  add to its outputs: \"out/use.log\"\n"))
    #expect(!text.contains("'plain'"), "a task without sources is not checked")
    #expect(text.contains("check-inputs: 2 of 2 checked task(s) read or write undeclared files (1 other task(s)"))
  }

  @Test func aProjectThatDeclaresEverythingPassesAndRunsEvenWhenUpToDate() throws {
    let fixed = Self.tasks.replacingOccurrences(of: "sources: [src/a.txt]", with: "sources: [src/a.txt, \"inc/*.txt\"]")
      .replacingOccurrences(of: "outputs: [out/use.txt]", with: "outputs: [out/use.txt, out/use.log]")
    let project = try project(fixed)
    defer { project.remove() }
    #expect(try project.run("use").status == 0)
    let output = try project.run("--check-inputs", "use")
    #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
    #expect(!output.stdout.contains("up to date"), "traced, so run")
    #expect(output.stdout.contains("check-inputs: every file the 2 checked task(s) read or wrote is declared"))
  }

  /// What a `sources: auto` task reads is its input by definition; its writes are checked.
  @Test func aTracedTaskIsCheckedForWritesOnly() throws {
    let project = try project(
      """
      tasks:
        gen:
          run: cat src/a.txt inc/h.txt > out/a.txt && echo x > out/extra.txt
          sources: auto
          outputs: [out/a.txt]

      """)
    defer { project.remove() }
    let output = try project.run("--check-inputs", "gen")
    #expect(output.status == 1)
    #expect(!output.stdout.contains("reads"), "\(output.stdout)")
    #expect(output.stdout.contains("task 'gen' writes 1 file its outputs do not declare:\n  out/extra.txt\n"))
  }

  @Test func itRunsTasksAndGoesWithNoPlan() throws {
    let project = try project()
    defer { project.remove() }
    let output = try project.run("--check-inputs", "-n", "use")
    #expect(output.status == 2)
    #expect(output.stderr.contains("--check-inputs runs tasks"))
  }
}
