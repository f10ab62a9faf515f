import Foundation
import Testing

/// `- task: NAME` in a `run` list, and a runner started by a task in the same directory.
@Suite struct TaskCallTests {
  static let tasks = """
    tasks:
      build: { params: { mode: debug }, run: 'echo "build $mode" >> log' }
      lint: 'echo lint >> log'
      release:
        deps: [lint]
        run:
          - echo before >> log
          - task: build
            with: { mode: release }
          - echo between >> log
          - task: lint
          - task: build
            with: { mode: release }
          - echo after >> log
      twice: { deps: [release, { task: build, with: { mode: release } }] }
    """

  @Test func callsRunInOrderOncePerDistinctParams() throws {
    let project = try TaskFileProject(Self.tasks)
    defer { project.remove() }
    let output = try project.run("-j1", "twice")
    #expect(output.status == 0, "\(output.stderr)")
    let log = (project.read("log") ?? "").split(separator: "\n").map(String.init)
    // Once each, and the list goes on only after each call: build before 'between', lint too.
    #expect(log.sorted() == ["after", "before", "between", "build release", "lint"], "\(log)")
    let position = { (line: String) in log.firstIndex(of: line) ?? -1 }
    #expect(position("before") < position("between"))
    #expect(position("build release") < position("between"))
    #expect(position("lint") < position("before"))
    #expect(position("between") < position("after"))
    let plan = try project.run("-n", "release")
    #expect(plan.stdout.contains("release#1"), "\(plan.stdout)")
    #expect(plan.stdout.contains("build[mode=release]"), "\(plan.stdout)")
    let describe = try project.run("--describe", "release")
    #expect(
      describe.stdout.contains("→ task build with mode=release\n"), "\(describe.stdout)")
  }

  @Test func runningACalledTaskAloneRunsNoCallersCommands() throws {
    let project = try TaskFileProject(Self.tasks)
    defer { project.remove() }
    let output = try project.run("build", "mode=release")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read("log") == "build release\n", "\(output.stdout)")
    #expect(!output.stdout.contains("release#1"))
  }

  @Test func aFailingCallStopsTheList() throws {
    let project = try TaskFileProject(
      "tasks:\n  bad: 'exit 3'\n  a:\n    run:\n      - echo one >> log\n      - task: bad\n      - echo two >> log\n")
    defer { project.remove() }
    let output = try project.run("a")
    #expect(output.status == 1)
    // The called task may fail before the first part runs (it waits only for its own deps).
    #expect(!(project.read("log") ?? "").contains("two"))
  }

  @Test func aCommandWithAColonSpaceSaysToQuoteIt() throws {
    let project = try TaskFileProject("tasks:\n  a:\n    run:\n      - echo one\n      - echo Building: done\n")
    defer { project.remove() }
    let output = try project.run("a")
    #expect(output.status == 2)
    #expect(
      output.stderr.contains("tasks.yml:5:9: error: 'echo Building: …' in 'run' of task 'a' is read as a mapping"),
      "\(output.stderr)")
  }

  @Test func aCallToAnUnknownTaskIsAnErrorAtItsLine() throws {
    let project = try TaskFileProject("tasks:\n  biuld: echo\n  a:\n    run:\n      - task: build\n")
    defer { project.remove() }
    let output = try project.run("a")
    #expect(output.status == 2)
    #expect(
      output.stderr.contains(
        "tasks.yml:5:15: error: task 'a' depends on 'build', which is not defined (did you mean 'biuld'?)"),
      "\(output.stderr)")
  }

  @Test func aNestedRunnerFailsAtOnceInsteadOfWaitingForItsParent() throws {
    let project = try TaskFileProject(
      """
      tasks:
        inner: echo inner
        outer: '"$RUNNER_BINARY" inner; echo "nested exit $?"'
      """)
    defer { project.remove() }
    let output = try project.run("outer", environment: ["RUNNER_BINARY": BinaryRunner.executable.path])
    #expect(output.status == 1, "\(output.stdout)\(output.stderr)")
    #expect(output.stdout.contains("call a task from another with '- task: NAME'"), "\(output.stdout)")
  }
}
