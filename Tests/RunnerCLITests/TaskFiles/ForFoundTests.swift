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

  /// A command that fails, a `dir` known only from params, and an unknown key are errors at
  /// `for:`, and nothing runs.
  @Test func whatCannotBeFoundIsAnErrorAtItsPlace() throws {
    let project = try TaskFileProject(
      """
      params: { where: src }
      tasks:
        greet: { params: { who: {} }, run: echo hi >> log }
        a:
          deps: [{ task: greet, for: { sh: "exit 3" }, with: { who: "${{ item }}" } }]
        b:
          dir: ${{ params.where }}
          deps: [{ task: greet, for: { files: "*" }, with: { who: "${{ item }}" } }]
        c:
          deps: [{ task: greet, for: { glob: "*" }, with: { who: "${{ item }}" } }]
      """)
    defer { project.remove() }
    let output = try project.run("greet")
    #expect(output.status == 2)
    #expect(output.stderr.contains("tasks.yml:5:38: error:"), "\(output.stderr)")
    #expect(output.stderr.contains("'exit 3', which failed (exit status 3)"), "\(output.stderr)")
    #expect(output.stderr.contains("tasks.yml:8:32: error:"), "\(output.stderr)")
    #expect(output.stderr.contains("the task's 'dir' cannot hold '${{'"), "\(output.stderr)")
    #expect(output.stderr.contains("tasks.yml:10:34: error: unknown key 'glob'"), "\(output.stderr)")
    #expect(!output.stderr.contains("not found"), "\(output.stderr)")
    #expect(project.read("log") == nil)
  }
}
