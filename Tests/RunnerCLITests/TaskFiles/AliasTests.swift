import Foundation
import Testing

/// `aliases`: other names of a task, on the command line, in `deps` and calls, in `--list`
/// and completion.
@Suite struct AliasTests {
  static let tasks = """
    tasks:
      build: { aliases: [b, bld], desc: Build it, run: echo built >> log }
      test:
        aliases: [t]
        deps: [b]
        run:
          - echo testing >> log
          - task: bld
    """

  @Test func anAliasNamesItsTaskEverywhere() throws {
    let project = try TaskFileProject(Self.tasks)
    defer { project.remove() }
    let output = try project.run("t")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read("log") == "built\ntesting\n", "\(output.stdout)")
    let list = try project.run("--list")
    #expect(list.stdout.contains("build (b, bld)  Build it"), "\(list.stdout)")
    let json = try project.run("--list", "--json")
    #expect(json.stdout.contains("\"aliases\": [\n      \"b\",\n      \"bld\"\n    ]"), "\(json.stdout)")
    let completion = try project.run("---completion", "--", "positional@0", "1", "1", "runner", "bl")
    #expect(completion.stdout.split(separator: "\n").contains("bld"), "\(completion.stdout)")
  }

  @Test func anAliasThatIsATaskNameIsAnErrorAtTheTask() throws {
    let project = try TaskFileProject("tasks:\n  build: echo\n  test: { aliases: [build], run: echo }\n")
    defer { project.remove() }
    let output = try project.run("test")
    #expect(output.status == 2)
    #expect(
      output.stderr.contains("tasks.yml:3:3: error: alias 'build' of task 'test' is the name of a task"),
      "\(output.stderr)")
  }

  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed"))
  func goTaskRunsTheSameTaskByItsAlias() throws {
    let project = try TaskFileProject(Self.tasks)
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      tasks:
        build: { aliases: [b, bld], cmds: [echo built >> log] }
        test: { aliases: [t], deps: [b], cmds: [echo testing >> log, task: bld] }
      """)
    _ = try ImportOrderTests.run(ImportOrderTests.task!, ["t"], in: project.directory)
    let original = project.read("log")
    #expect(original == "built\ntesting\nbuilt\n")
    _ = try project.shell("rm log")
    #expect(try project.run("t").status == 0)
    // go-task runs a called task again; runner reuses the node that already ran.
    #expect(project.read("log") == "built\ntesting\n")
  }
}
