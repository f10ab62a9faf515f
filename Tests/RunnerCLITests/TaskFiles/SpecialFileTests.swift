import Foundation
import Testing

/// Files runner reads or writes by name that a FIFO (or another special file) has replaced:
/// each is a clear error or a correct run, never a silent wait for a writer or a reader.
@Suite struct SpecialFileTests {
  static let deadline = Duration.seconds(60)

  func run(_ project: TaskFileProject, _ arguments: [String]) throws -> BinaryRunner.Output {
    try BinaryRunner.run(arguments, in: project.directory, deadline: Self.deadline)
  }

  @Test func aDotEnvThatIsAFIFOIsAnError() throws {
    let project = try TaskFileProject("dotenv: [.env]\ntasks:\n  a: echo ran\n")
    defer { project.remove() }
    _ = try project.shell("mkfifo .env")
    let output = try run(project, ["a"])
    #expect(output.status == 2, "\(output.stderr)")
    #expect(output.stderr.contains("not a regular file (a FIFO)"), "\(output.stderr)")
  }

  @Test func aLockOrStateThatIsAFIFOIsSaidAndNeverWaitedFor() throws {
    let project = try TaskFileProject("tasks:\n  a: { sources: [in.txt], run: echo ran }\n")
    defer { project.remove() }
    try project.write("in.txt", "1")
    #expect(try run(project, ["a"]).status == 0)
    _ = try project.shell("rm -f .runner/state && mkfifo .runner/state")
    let state = try run(project, ["a"])
    #expect(state.status == 0, "\(state.stderr)")
    #expect(state.stdout.contains("a | ran"), "an unreadable state runs the task")
    _ = try project.shell("rm -f .runner/lock && mkfifo .runner/lock")
    let lock = try run(project, ["a"])
    #expect(lock.status == 2, "\(lock.stderr)")
    #expect(lock.stderr.contains(".runner/lock") && lock.stderr.contains("not a regular file (a FIFO)"))
  }

  @Test func aRunnerOutputThatIsAFIFOFailsTheTask() throws {
    let project = try TaskFileProject("tasks:\n  a: 'rm -f \"$RUNNER_OUTPUT\"; mkfifo \"$RUNNER_OUTPUT\"'\n")
    defer { project.remove() }
    let output = try run(project, ["a"])
    #expect(output.status == 1, "\(output.stderr)")
    #expect(
      output.stdout.contains("cannot read $RUNNER_OUTPUT") && output.stdout.contains("a FIFO"), "\(output.stdout)")
  }

  @Test func anIncludeThroughASymlinkLoopSaysSo() throws {
    let project = try TaskFileProject("includes:\n  sub: loop/tasks.yml\ntasks:\n  a: echo ran\n")
    defer { project.remove() }
    _ = try project.shell("ln -s loop loop")
    let output = try run(project, ["a"])
    #expect(output.status == 2)
    #expect(output.stderr.contains("too many levels of symbolic links"), "\(output.stderr)")
    #expect(!output.stderr.contains("not found"), "\(output.stderr)")
  }

  @Test func importOntoADanglingSymlinkNeedsForce() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("Makefile", "all:\n\techo hi\n")
    _ = try project.shell("ln -s nowhere/file out.yml")
    let output = try run(project, ["import", "Makefile", "-o", "out.yml"])
    #expect(output.status == 2, "\(output.stderr)")
    #expect(output.stderr.contains("'out.yml' exists: give --force"), "\(output.stderr)")
  }

  @Test func aGarbledStateIsWarnedOfWithoutItsRawBytes() throws {
    let project = try TaskFileProject("tasks:\n  a: { sources: [in.txt], run: echo ran }\n")
    defer { project.remove() }
    try project.write("in.txt", "1")
    #expect(try run(project, ["a"]).status == 0)
    let state = project.directory.appendingPathComponent(".runner/state")
    var bytes = try Data(contentsOf: state)
    bytes.append(contentsOf: Array("\u{1B}[2J\u{7}\0garbage\n".utf8))
    try bytes.write(to: state)
    let output = try run(project, ["a"])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(!output.stderr.contains("\u{1B}[2J") && !output.stderr.contains("\u{7}"), "\(output.stderr)")
  }
}
