import Foundation
import Testing

/// What a task sees of the jobserver in `MAKEFLAGS`, its `jobserver:` setting, and what
/// never reaches its key. No build tool needed: the shell plays the tool.
@Suite struct JobserverTaskFileTests {
  @Test func eachTaskGetsAPoolInMakeflagsAsMakeWritesIt() throws {
    let project = try TaskFileProject(
      """
      tasks:
        fifo: { run: 'echo "[$MAKEFLAGS]"', jobserver: fifo }
        own: { run: 'echo "[$MAKEFLAGS]"', jobserver: fifo, env: { MAKEFLAGS: k } }
        none: { run: 'echo "[$MAKEFLAGS]"', jobserver: false }
      """)
    defer { project.remove() }
    let fifo = try project.run("-j2", "fifo")
    #expect(fifo.status == 0, "\(fifo.stderr)")
    #expect(fifo.stdout.contains("[ -j2 --jobserver-auth=fifo:/"), "\(fifo.stdout)")
    let own = try project.run("-j3", "own")
    #expect(own.stdout.contains("[k -j3 --jobserver-auth=fifo:/"), "\(own.stdout)")
    let none = try project.run("-j2", "none")
    #expect(none.stdout.contains("none | []"), "\(none.stdout)")
  }

  /// The descriptor form: the task inherits both ends and takes the slot runner lent it (bash:
  /// dash redirects only descriptors 0 to 9).
  @Test func thePipeFormHandsTheTaskTwoDescriptors() throws {
    let project = try TaskFileProject(
      """
      tasks:
        pipe:
          run: |
            auth=${MAKEFLAGS##*=}
            read=${auth%,*}; write=${auth#*,}
            token=$(dd bs=1 count=1 <&$read 2>/dev/null)
            printf %s "$token" >&$write
            echo "took [$token] from $auth"
          jobserver: pipe
          shell: bash
      """)
    defer { project.remove() }
    let result = try project.run("-j2", "pipe")
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains("took [+] from "), "\(result.stdout)")
  }

  /// `-j`, and with it `MAKEFLAGS` and the fifo's path, change from run to run: none of it is in
  /// the key, so the second run finds the task up to date.
  @Test func makeflagsNeverEnterTheKey() throws {
    let project = try TaskFileProject(
      """
      tasks:
        gen: { run: 'cp in.txt out.txt', sources: [in.txt], outputs: [out.txt] }
      """)
    defer { project.remove() }
    try project.write("in.txt", "x\n")
    #expect(try project.run("-j2", "gen").status == 0)
    let again = try project.run("-j3", "gen")
    #expect(again.stdout.contains("✓ gen up to date"), "\(again.stdout)")
  }

  @Test func aJobserverMakeflagsNamesButCannotBeOpenedIsSaidAndLeftAlone() throws {
    let project = try TaskFileProject("tasks:\n  t: 'echo \"[$MAKEFLAGS]\"'\n")
    defer { project.remove() }
    let missing = project.directory.appendingPathComponent("no-such-fifo").path
    let result = try project.run("t", environment: ["MAKEFLAGS": " -j4 --jobserver-auth=fifo:\(missing)"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("warning: jobserver: cannot open the fifo \(missing) that MAKEFLAGS names"))
    // The task gets runner's own pool in its place.
    #expect(result.stdout.contains(" --jobserver-auth="), "\(result.stdout)")
    #expect(!result.stdout.contains(missing), "\(result.stdout)")
  }

  @Test(arguments: [
    (
      "tasks:\n  a:\n    run: make\n    jobserver: sometimes\n",
      "tasks.yml:4:16: error: 'jobserver' of task 'a' must be true, false, fifo or pipe, found 'sometimes'"
    ),
    (
      "tasks:\n  a:\n    run: sleep 9\n    service: true\n    jobserver: fifo\n",
      "'jobserver' of task 'a' needs 'run', and cannot go with 'service'"
    ),
  ])
  func aWrongSettingIsAnErrorWhereItIs(file: String, message: String) throws {
    let project = try TaskFileProject(file)
    defer { project.remove() }
    let result = try project.run("a")
    #expect(result.status == 2)
    #expect(result.stderr.contains(message), "\(result.stderr)")
  }
}
