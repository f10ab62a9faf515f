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

  /// An ended task's fifo goes to the next task; not after a task left a process behind, which
  /// may still hold it: the next task then gets a new one.
  @Test func aPoolGoesToTheNextTaskUnlessAProcessWasLeftBehind() throws {
    let project = try TaskFileProject(
      """
      tasks:
        first: { run: 'echo "[$MAKEFLAGS]"', jobserver: fifo }
        second: { deps: [first], run: 'echo "[$MAKEFLAGS]"', jobserver: fifo }
        leaves: { run: 'sleep 2 & echo "[$MAKEFLAGS]"', jobserver: fifo }
        after: { deps: [leaves], run: 'echo "[$MAKEFLAGS]"', jobserver: fifo }
      """)
    defer { project.remove() }
    func fifos(_ output: String) -> [String: String] {
      var found: [String: String] = [:]
      for line in output.split(separator: "\n") where line.contains("fifo:") {
        let task = line.split(separator: " ").first.map(String.init) ?? ""
        found[task] = line.split(separator: "fifo:").last.map { String($0.dropLast()) }
      }
      return found
    }
    let kept = try project.run("-j1", "second")
    #expect(kept.status == 0, "\(kept.stderr)")
    let keptPaths = fifos(kept.stdout)
    #expect(keptPaths.count == 2 && keptPaths["first"] == keptPaths["second"], "\(kept.stdout)")
    let left = try project.run("-j1", "after")
    #expect(left.status == 0, "\(left.stderr)")
    let leftPaths = fifos(left.stdout)
    #expect(leftPaths.count == 2 && leftPaths["leaves"] != leftPaths["after"], "\(left.stdout)")
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

  /// A parent's fifo jobserver with two tokens (as make 4.4 serves one): runner runs at most
  /// three tasks at once (its own slot and two tokens) and gives every token back.
  @Test func underAFifoJobserverRunnerTakesItsTokensAndGivesThemBack() throws {
    var tasks = "tasks:\n"
    for n in 1...6 { tasks += "  t\(n): 'echo start \(n) >> log.txt; sleep 0.2; echo end \(n) >> log.txt'\n" }
    tasks += "  all: { deps: [t1, t2, t3, t4, t5, t6] }\n"
    let project = try TaskFileProject(tasks)
    defer { project.remove() }
    let fifo = project.directory.appendingPathComponent("pool").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let pool = open(fifo, O_RDWR | O_NONBLOCK)
    defer { close(pool) }
    #expect(write(pool, "++", 2) == 2)
    let result = try project.run("all", environment: ["MAKEFLAGS": " -j3 --jobserver-auth=fifo:\(fifo)"])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.isEmpty, "\(result.stderr)")
    #expect(JobRecords(project.read("log.txt")).mostAtOnce <= 3)
    var tokens = [UInt8](repeating: 0, count: 8)
    #expect(read(pool, &tokens, 8) == 2)
  }

  /// runner run by a task of runner's: a client of the outer one, so the inner run's tasks and
  /// the outer run's other task share the outer `-j2`.
  @Test func runnerUnderRunnerSharesOneBudget() throws {
    var inner = "tasks:\n"
    for n in 1...4 { inner += "  i\(n): 'echo start i\(n) >> ../log.txt; sleep 0.2; echo end i\(n) >> ../log.txt'\n" }
    inner += "  all: { deps: [i1, i2, i3, i4] }\n"
    let project = try TaskFileProject(
      """
      tasks:
        nested: '"$RUNNER" -f sub/inner.yml all'
        beside: 'for n in 1 2 3; do echo start b$n >> log.txt; sleep 0.2; echo end b$n >> log.txt; done'
        all: { deps: [nested, beside] }
      """)
    defer { project.remove() }
    // A directory of its own: the outer run holds the lock on this one's state.
    try project.write("sub/inner.yml", inner)
    let result = try project.run("-j2", "all", environment: ["RUNNER": BinaryRunner.executable.path])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let records = JobRecords(project.read("log.txt"))
    #expect(records.starts == 7)
    #expect(records.mostAtOnce == 2, "\(records.lines)")
  }

  @Test(arguments: [
    (
      "tasks:\n  a:\n    run: make\n    jobserver: sometimes\n",
      "tasks.yml:4:16: error: 'jobserver' of task 'a' must be true, false, fifo or pipe, found 'sometimes'"
    ),
    (
      "tasks:\n  a:\n    run: sleep 9\n    service: true\n    jobserver: fifo\n",
      "'jobserver' of task 'a' cannot go with 'service': a service holds no job slot once it is up"
    ),
    (
      "tasks:\n  a:\n    deps: [b]\n    jobserver: fifo\n  b: 'true'\n",
      "tasks.yml:4:16: error: 'jobserver' of task 'a' needs 'run'"
    ),
    (
      "jobserver: fifo\ntasks:\n  a: 'true'\n",
      "runner's equivalent is a task key: put 'jobserver' under 'tasks: NAME:'"
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
