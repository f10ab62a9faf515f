import Foundation
import Testing

/// `preconditions`: commands that must succeed before a task runs, each with its message.
@Suite struct PreconditionTests {
  static let tasks = """
    tasks:
      deploy:
        preconditions:
          - test -d .
          - sh: test -f deploy.key
            msg: deploy.key is missing
        run:
          - echo deploying >> log
          - task: notify
      notify: echo notified >> log
    """

  @Test func aFailingPreconditionFailsTheTaskWithItsMessageBeforeAnythingRuns() throws {
    let project = try TaskFileProject(Self.tasks)
    defer { project.remove() }
    let failed = try project.run("deploy")
    #expect(failed.status == 1)
    #expect(
      (failed.stdout + failed.stderr).contains("tasks.yml:5:9: precondition failed: deploy.key is missing"),
      "\(failed.stdout)\(failed.stderr)")
    #expect(project.read("log") == nil)
    try project.write("deploy.key", "k")
    let ran = try project.run("deploy")
    #expect(ran.status == 0, "\(ran.stderr)")
    #expect(project.read("log") == "deploying\nnotified\n")
    let describe = try project.run("--describe", "deploy")
    #expect(describe.stdout.contains("$ test -f deploy.key (deploy.key is missing)"), "\(describe.stdout)")
  }

  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed"))
  func goTaskRefusesTheSameWay() throws {
    let project = try TaskFileProject(Self.tasks)
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      tasks:
        deploy:
          preconditions:
            - test -d .
            - sh: test -f deploy.key
              msg: deploy.key is missing
          cmds: [echo deploying >> log, task: notify]
        notify: { cmds: [echo notified >> log] }
      """)
    let goTask = { try ImportOrderTests.run(ImportOrderTests.task!, ["deploy"], in: project.directory) }
    let (status, text) = try goTask()
    #expect(status != 0)
    #expect(text.contains("deploy.key is missing"), "\(text)")
    #expect(project.read("log") == nil)
    #expect(try project.run("deploy").status == 1)
    #expect(project.read("log") == nil)
    try project.write("deploy.key", "k")
    #expect(try goTask().0 == 0)
    let original = project.read("log")
    _ = try project.shell("rm log")
    #expect(try project.run("deploy").status == 0)
    #expect(project.read("log") == original)
  }

  @Test func aPreconditionNeedsACommand() throws {
    let project = try TaskFileProject("tasks:\n  a:\n    preconditions: [{ msg: why }]\n    run: echo\n")
    defer { project.remove() }
    let output = try project.run("a")
    #expect(output.status == 2)
    #expect(
      output.stderr.contains("tasks.yml:3:21: error: an entry of 'preconditions' of task 'a' needs 'sh: COMMAND'"),
      "\(output.stderr)")
  }
}
