import Foundation
import Testing

/// `for: { files: }` and `for: { sh: }`: a call or a `deps` entry repeated over values runner
/// finds when it loads the file.
@Suite struct ForFoundTests {
  /// The files the globs match in the task's directory (`!` excluding), sorted and relative to
  /// it; a file added later is found by the next run (no no-op record pins the old graph).
  @Test func aDependencyRepeatedOverFilesFollowsTheDisk() throws {
    let project = try TaskFileProject(
      """
      tasks:
        check: { params: { file: {} }, dir: src, run: 'echo "$file" >> ../log' }
        all:
          dir: src
          deps:
            - { task: check, for: { files: ["*.txt", "!skip.txt"] }, with: { file: "${{ item }}" } }
      """)
    defer { project.remove() }
    for name in ["src/b.txt", "src/a.txt", "src/skip.txt", "src/c.md"] { try project.write(name, "x\n") }
    let first = try project.run("all")
    #expect(first.status == 0, "\(first.stderr)")
    #expect(project.read("log").map { $0.split(separator: "\n").sorted() } == ["a.txt", "b.txt"])
    try project.write("src/d.txt", "x\n")
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("log"))
    let second = try project.run("all")
    #expect(second.status == 0, "\(second.stderr)")
    #expect(project.read("log").map { $0.split(separator: "\n").sorted() } == ["a.txt", "b.txt", "d.txt"])
  }

  /// The words a command prints, in order, for a call in a `run` list; the command runs in the
  /// task's directory.
  @Test func aCallRepeatedOverACommandsWordsRunsInOrder() throws {
    let project = try TaskFileProject(
      """
      tasks:
        greet: { params: { who: {} }, run: 'echo "hi $who" >> log' }
        all:
          dir: people
          run:
            - echo start >> ../log
            - { task: greet, for: { sh: "cat names" }, with: { who: "${{ item }}" } }
            - echo end >> ../log
      """)
    defer { project.remove() }
    try project.write("people/names", "zoe  al\nbo\n")
    let output = try project.run("-j", "1", "all")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read("people/log") == nil)
    #expect(project.read("log") == "start\nhi zoe\nhi al\nhi bo\nend\n")
  }

  /// A command that fails (or a missing `dir`) fails that task when it runs, saying why; the
  /// rest of the file runs.
  @Test func valuesThatCannotBeFoundFailTheirTaskWhenItRuns() throws {
    let project = try TaskFileProject(
      """
      tasks:
        greet: { params: { who: {} }, run: echo "hi $who" >> log }
        a:
          deps: [{ task: greet, for: { sh: "exit 3" }, with: { who: "${{ item }}" } }]
          run: echo a >> log
        b:
          dir: nowhere
          run: [{ task: greet, for: { sh: "echo x" }, with: { who: "${{ item }}" } }]
      """)
    defer { project.remove() }
    let fine = try project.run("greet", "who=me")
    #expect(fine.status == 0, "\(fine.stderr)")
    let failed = try project.run("a")
    #expect(failed.status == 1)
    #expect(
      failed.stdout.contains("tasks.yml:4:38: 'for' in 'deps' of task 'a': 'exit 3' failed (exit status 3)"),
      "\(failed.stdout)")
    let missing = try project.run("b")
    #expect(missing.status == 1)
    // The task cannot start there anyway: runner says so.
    #expect(missing.stdout.contains("cannot change to working directory './nowhere'"), "\(missing.stdout)")
    #expect(project.read("log") == "hi me\n")
  }

  /// What cannot be read is an error at its place: a `dir` known only from params, an unknown
  /// key, a single word (go-task's `for: sources`); a file included with `dir:`.
  @Test func whatCannotBeReadIsAnErrorAtItsPlace() throws {
    let project = try TaskFileProject(
      """
      params: { where: src }
      tasks:
        greet: { params: { who: {} }, run: echo hi >> log }
        b:
          dir: ${{ params.where }}
          deps: [{ task: greet, for: { files: "*" }, with: { who: "${{ item }}" } }]
        c:
          deps: [{ task: greet, for: { glob: "*" }, with: { who: "${{ item }}" } }]
        d:
          deps: [{ task: greet, for: sources, with: { who: "${{ item }}" } }]
      """)
    defer { project.remove() }
    try project.write("lib.yml", "tasks:\n  l: { run: [{ task: ':greet', for: { sh: 'echo x' } }] }\n")
    let output = try project.run("greet")
    #expect(output.status == 2)
    #expect(output.stderr.contains("tasks.yml:6:32: error:"), "\(output.stderr)")
    #expect(output.stderr.contains("the task's 'dir' cannot hold '${{'"), "\(output.stderr)")
    #expect(output.stderr.contains("tasks.yml:8:34: error: unknown key 'glob'"), "\(output.stderr)")
    #expect(output.stderr.contains("tasks.yml:10:32: error:") && output.stderr.contains("a single word is no list"))
    #expect(project.read("log") == nil)
    try project.write("tasks.yml", "includes:\n  lib: { path: lib.yml, dir: elsewhere }\ntasks:\n  greet: echo hi\n")
    let included = try project.run("greet")
    #expect(included.status == 2)
    #expect(included.stderr.contains("lib.yml:2:3: error: task 'l' has a 'for:'"), "\(included.stderr)")
  }
}
