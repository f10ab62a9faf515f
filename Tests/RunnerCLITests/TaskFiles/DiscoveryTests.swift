import Foundation
import Testing

/// Issue 23: the task file found from any directory below it, `-C DIR`, `--init`.
@Suite struct DiscoveryTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// Three levels below a tasks.yml: `--list` lists its tasks, a task runs in the file's
  /// directory, and `$RUNNER_INVOCATION_DIR` is where runner was started.
  @Test func theNearestTaskFileAboveIsFound() throws {
    let project = try TaskFileProject(
      "tasks:\n  where: 'echo \"pwd=$PWD\"; echo \"invocation=$RUNNER_INVOCATION_DIR\"'\n")
    defer { project.remove() }
    let report = try project.shell(
      """
      top=$(pwd -P); mkdir -p a/b/c; cd a/b/c
      "$RUNNER" --list; echo "list=$?"
      "$RUNNER" --output quiet where > /dev/null; "$RUNNER" where | grep '|' | sed "s#$top#TOP#"; echo "run=$?"
      ls "$top/.runner" > /dev/null && echo "state beside the file"
      """)
    #expect(
      report == """
        where
        list=0
        where | pwd=TOP
        where | invocation=TOP/a/b/c
        run=0
        state beside the file

        """, "\(report)")
  }

  /// `tasks.yml` before `tasks.yaml` in one directory; the nearest directory wins.
  @Test func tasksYmlFirstAndTheNearestWins() throws {
    let project = try TaskFileProject("tasks:\n  top: echo top\n")
    defer { project.remove() }
    try project.write("sub/tasks.yaml", "tasks:\n  yaml: echo yaml\n")
    try project.write("sub/deeper/.keep", "")
    let report = try project.shell(
      """
      cd sub/deeper; "$RUNNER" --list
      cd ..; printf 'tasks:\\n  yml: echo yml\\n' > tasks.yml; "$RUNNER" --list
      """)
    #expect(report == "yaml\nyml\n", "\(report)")
  }

  /// Nothing found: exit 2, naming where it looked and what to do.
  @Test func noTaskFileNamesWhereItLooked() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    let output = try project.run("--list")
    #expect(output.status == 2)
    #expect(output.stderr.contains("error: no tasks.yml or tasks.yaml in '"), "\(output.stderr)")
    #expect(output.stderr.contains("or write a starter file with --init"), "\(output.stderr)")
  }

  /// As root: a parent's tasks.yml that another user owns (or whose directory another user
  /// owns, or that anyone may write) is refused, with the file, the owner and the `-f` that would use it; exit 2.
  /// The same file in the current directory is used: it was chosen by standing there.
  @Test(.enabled(if: getuid() == 0, "needs root to give a file to another user"))
  func aParentsTaskFileOfAnotherUserIsRefused() throws {
    let project = try TaskFileProject("tasks:\n  t: echo ran\n")
    defer { project.remove() }
    let report = try project.shell(
      """
      mkdir sub; chown 65534 tasks.yml
      "$RUNNER" --output quiet t > /dev/null; echo "here=$?"
      cd sub; "$RUNNER" t 2> err.txt; echo "below=$?"; cat err.txt
      chown 0 ../tasks.yml; chown 65534 ..; "$RUNNER" t 2> err.txt > /dev/null; echo "directory=$?"
      grep -c 'its directory belongs to' err.txt; chown 0 ..
      chmod 666 ../tasks.yml; "$RUNNER" t 2> err.txt > /dev/null; echo "writable=$?"
      grep -c 'anyone may write the file' err.txt; chmod 644 ../tasks.yml
      """)
    let lines = report.split(separator: "\n").map(String.init)
    #expect(lines.first == "here=0", "\(report)")
    #expect(lines.contains("below=2"), "\(report)")
    #expect(
      report.contains(
        #/error: found '/[^']*/tasks\.yml' but did not use it: the file belongs to [^(]*\(?uid 65534\)?/#),
      "\(report)")
    #expect(report.contains("To use it: runner -f /"), "\(report)")
    #expect(lines.suffix(4) == ["directory=2", "1", "writable=2", "1"], "\(report)")
  }

  /// `-C DIR` behaves as if started in DIR; a missing DIR is a usage error.
  @Test func dashCStartsInTheDirectory() throws {
    let listed = try BinaryRunner.run(["-C", "examples/images", "--list"], in: Self.repository)
    #expect(listed.status == 0, "\(listed.stderr)")
    #expect(listed.stdout.contains("village-thumb"), "\(listed.stdout)")
    let project = try TaskFileProject("tasks:\n  where: 'echo \"invocation=$RUNNER_INVOCATION_DIR\"'\n")
    defer { project.remove() }
    let report = try project.shell(
      """
      top=$(pwd -P); mkdir -p sub; cd /
      "$RUNNER" -C "$top/sub" where | grep '|' | sed "s#$top#TOP#"
      "$RUNNER" --dir "$top/missing" where; echo "missing=$?"
      """)
    #expect(report == "where | invocation=TOP/sub\nmissing=2\n", "\(report)")
  }

  /// `--init` writes a starter file that loads and runs; a second one changes nothing (exit 2).
  @Test func initWritesAStarterFileOnce() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    let first = try project.run("--init")
    #expect(first.status == 0, "\(first.stderr)")
    let written = project.read("tasks.yml")
    #expect(written?.hasPrefix("# yaml-language-server: $schema=/") == true, "\(written ?? "")")
    let listed = try project.run("--list")
    #expect(listed.stdout.contains("build") && listed.stdout.contains("test"), "\(listed.stdout)\(listed.stderr)")
    #expect(try project.run().status == 0)
    let second = try project.run("--init")
    #expect(second.status == 2)
    #expect(second.stderr.contains("'tasks.yml' already exists here; --init never overwrites"), "\(second.stderr)")
    #expect(project.read("tasks.yml") == written)
    #expect(try project.run("--init", "build").status == 2)
  }
}
