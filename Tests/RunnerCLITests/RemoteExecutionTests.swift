import Foundation
import Testing

/// Remote execution through the built binary, on buildbox-casd with buildbox-run (bubblewrap)
/// as `.ci/remote-servers.sh` starts it: tasks run in its sandbox, their outputs, values and
/// logs come back as a local run's would; fail-fast cancels what runs there; faults make tasks
/// run here.
@Suite(
  .enabled(
    if: ProcessInfo.processInfo.environment["RUNNER_TEST_CASD"] != nil,
    "no remote servers named (.ci/remote-servers.sh start DIR)"))
struct RemoteExecutionTests {
  static let deadline = Duration.seconds(300)
  static var casd: String { ProcessInfo.processInfo.environment["RUNNER_TEST_CASD"]! }

  func run(_ project: TaskFileProject, _ arguments: [String]) throws -> BinaryRunner.Output {
    let events = project.directory.appendingPathComponent("events.jsonl").path
    return try BinaryRunner.run(["--events", events] + arguments, in: project.directory, deadline: Self.deadline)
  }

  /// The events of the last run, each a JSON object.
  func events(_ project: TaskFileProject) throws -> [[String: Any]] {
    try (project.read("events.jsonl") ?? "").split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
  }

  /// Each task's reason on `succeeded`, by name.
  func reasons(_ project: TaskFileProject) throws -> [String: String] {
    var reasons: [String: String] = [:]
    for event in try events(project) where event["state"] as? String == "succeeded" {
      if let task = event["task"] as? String { reasons[task] = event["reason"] as? String }
    }
    return reasons
  }

  /// Whether a process on this machine has `text` in its command line.
  static func processRuns(_ text: String) -> Bool {
    let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return pids.contains { pid in
      guard pid.allSatisfy(\.isNumber), let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
      else { return false }
      return String(decoding: bytes.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self).contains(text)
    }
  }

  /// The 200-task graph runs on casd with the same bytes as a local run; a second checkout is
  /// then all remote cache hits.
  @Test func aGraphOf200TasksRunsRemotelyWithTheBytesOfALocalRun() throws {
    let seed = UUID().uuidString
    let projects = try (0..<3).map { _ in
      let project = try TaskFileProject(RemoteCacheTests.graph(200))
      try project.write("src/seed.txt", seed + "\n")
      return project
    }
    defer { projects.forEach { $0.remove() } }
    let local = try run(projects[0], ["-j", "2"])
    #expect(local.status == 0, "\(local.stderr)")
    let remote = try run(projects[1], ["-j", "2", "--remote-exec", Self.casd])
    #expect(remote.status == 0, "\(remote.stderr)")
    #expect(remote.stderr.contains("200 executed, 0 from its cache"), "\(remote.stderr)")
    let reasons = try reasons(projects[1])
    #expect(reasons.count == 200 && reasons.values.allSatisfy { $0 == "ran remotely on \(Self.casd)" })
    #expect(remote.stdout.contains("| made 0\n"), "the remote log is shown")
    for index in 0..<200 {
      let name = "out/t\(index).txt"
      #expect(projects[1].read(name) != nil && projects[1].read(name) == projects[0].read(name), "\(name)")
    }
    // What ran remotely was stored under the tasks' keys: another checkout restores it all.
    let again = try run(projects[2], ["-j", "2", "--remote-exec", Self.casd])
    #expect(again.status == 0 && again.stderr.contains("200 hits, 0 misses, 0 stored"), "\(again.stderr)")
    #expect(try self.reasons(projects[2]).values.allSatisfy { $0 == "restored from remote cache" })
    // Locally recorded too: nothing runs a second time.
    let noOp = try run(projects[1], ["-j", "2", "--remote-exec", Self.casd])
    #expect(noOp.status == 0 && noOp.stderr.contains("0 executed"), "\(noOp.stderr)")
  }

  /// A spot check runs here what the remote cache holds, even for tasks given remote slots: each
  /// is handed back to a local slot, run, and found the same.
  @Test func aSpotCheckRunsTasksHereNotOnTheExecutor() throws {
    let seed = UUID().uuidString
    let projects = try (0..<2).map { _ in
      let project = try TaskFileProject(RemoteCacheTests.graph(20))
      try project.write("src/seed.txt", seed + "\n")
      return project
    }
    defer { projects.forEach { $0.remove() } }
    let remote = try run(projects[0], ["-j", "2", "--remote-exec", Self.casd])
    #expect(remote.status == 0 && remote.stderr.contains("20 executed"), "\(remote.stderr)")
    let checked = try run(projects[1], ["-j", "2", "--remote-exec", Self.casd, "--verify-cache=100"])
    #expect(checked.status == 0, "\(checked.stdout)\n\(checked.stderr)")
    #expect(checked.stderr.contains("0 executed, 0 from its cache"), "\(checked.stderr)")
    #expect(checked.stderr.contains("0 hits, 0 misses, 0 stored, 20 spot-checked (0 differed)"), "\(checked.stderr)")
    for index in 0..<20 {
      let name = "out/t\(index).txt"
      #expect(projects[1].read(name) != nil && projects[1].read(name) == projects[0].read(name), "\(name)")
    }
  }

  /// examples/remote-cache runs remotely, each task seeing its dependencies' outputs, with
  /// the bytes of a local run (the executable bit included).
  @Test func theExampleRunsRemotelyWithTheBytesOfALocalRun() throws {
    let checkouts = try RemoteCacheTests.exampleCheckouts()
    defer { checkouts.forEach { $0.remove() } }
    let local = try run(checkouts[0], ["--no-cache"])
    #expect(local.status == 0, "\(local.stderr)")
    let remote = try run(checkouts[1], ["--remote-exec", Self.casd])
    #expect(remote.status == 0 && remote.stderr.contains("3 executed"), "\(remote.stderr)")
    #expect(remote.stdout.contains("test    | 1 test passed"), "\(remote.stdout)")
    #expect(try reasons(checkouts[1]).values.allSatisfy { $0.hasPrefix("ran remotely on") })
    for name in ["dist/hello", "dist/test-output.txt", "dist/hello.tar"] {
      let bytes = try Data(contentsOf: checkouts[1].directory.appendingPathComponent(name))
      #expect(bytes == (try Data(contentsOf: checkouts[0].directory.appendingPathComponent(name))), "\(name)")
    }
  }

  /// A dependency without sources (its outputs unrecorded), reached through a group, still
  /// hands its files to the worker; a declared output the remote command did not create
  /// fails the task, and the next run runs it again.
  @Test func dependencyOutputsReachTheWorkerAndAMissingOutputFails() throws {
    let project = try TaskFileProject(
      """
      tasks:
        fetch: { outputs: [data/raw.txt], run: mkdir -p data && cp seed.txt data/raw.txt }
        inputs: { deps: [fetch] }
        build: { deps: [inputs], sources: [seed.txt], outputs: [built.txt], run: tr a-z A-Z < data/raw.txt > built.txt }
        forgetful: { sources: [seed.txt], outputs: [never.txt], run: echo nothing }
      """)
    defer { project.remove() }
    let seed = "seed \(UUID().uuidString.lowercased())"
    try project.write("seed.txt", seed)
    let built = try run(project, ["build", "--remote-exec", Self.casd])
    #expect(built.status == 0, "\(built.stdout)\(built.stderr)")
    #expect(try reasons(project)["build"] == "ran remotely on \(Self.casd)")
    #expect(project.read("built.txt") == seed.uppercased())
    for _ in 0..<2 {
      let missing = try run(project, ["forgetful", "--remote-exec", Self.casd])
      #expect(missing.status == 1, "\(missing.stderr)")
      #expect(missing.stdout.contains("declared output 'never.txt' was not created"), "\(missing.stdout)")
    }
  }

  /// A task failing remotely fails the run (exit 1) with its output and exit code; with
  /// fail-fast the task running remotely beside it is cancelled on the server (its process ends).
  @Test func failFastCancelsTheRemoteOperation() throws {
    let marker = "61.\(Int.random(in: 100_000...999_999))"
    let project = try TaskFileProject(
      """
      tasks:
        slow:
          sources: [in.txt]
          run: sleep \(marker)
        boom:
          run: |
            i=0
            until pgrep -f "sleep \(marker)" > /dev/null; do
              i=$((i + 1)); [ $i -lt 600 ] || exit 5; sleep 0.05
            done
            echo the remote task is running >&2
            exit 4
        remote-fail:
          sources: [in.txt]
          run: echo broken on the worker >&2; exit 3
        both:
          deps: [slow, boom]
      """)
    defer { project.remove() }
    try project.write("in.txt", UUID().uuidString)
    let output = try run(project, ["both", "--remote-exec", Self.casd])
    #expect(output.status == 1, "\(output.stderr)")
    #expect(output.stdout.contains("the remote task is running"), "\(output.stdout)")
    let states = try events(project).filter { $0["task"] as? String == "slow" }.compactMap { $0["state"] as? String }
    #expect(states.last == "cancelled", "\(states)")
    var left = true
    for _ in 0..<200 {
      left = Self.processRuns("sleep \(marker)")
      if !left { break }
      usleep(50_000)
    }
    #expect(!left, "the remote process outlived the run")
    let failed = try run(project, ["remote-fail", "--remote-exec", Self.casd])
    #expect(failed.status == 1)
    #expect(failed.stdout.contains("remote-fail | broken on the worker"), "\(failed.stdout)")
    #expect(failed.stdout.contains("failed with exit code 3"), "\(failed.stdout)")
  }

  /// `-j 1` and two remote slots: two remote tasks execute at once beside the local limit.
  @Test func remoteJobsAreALimitBesideTheLocalOne() throws {
    let project = try TaskFileProject(
      """
      tasks:
        a: { sources: [in.txt], run: sleep 1 }
        b: { sources: [in.txt], run: sleep 1.1 }
        all: { deps: [a, b] }
      """)
    defer { project.remove() }
    try project.write("in.txt", UUID().uuidString)
    let output = try run(project, ["all", "-j", "1", "--remote-jobs", "2", "--remote-exec", Self.casd])
    #expect(output.status == 0, "\(output.stderr)")
    var executing = 0
    var most = 0
    for event in try events(project) where ["a", "b"].contains(event["task"] as? String) {
      if event["state"] as? String == "executing" { executing += 1 }
      if event["state"] as? String == "succeeded" { executing -= 1 }
      most = max(most, executing)
    }
    #expect(most == 2)
  }

  /// The plan says where each task would run, and why not remotely.
  @Test func thePlanSaysWhereEachTaskRuns() throws {
    let project = try TaskFileProject(
      """
      remote:
        exec: \(Self.casd)
      tasks:
        build: { sources: [in.txt], outputs: [out.txt], run: cp in.txt out.txt }
        loose: { run: echo hi }
        globbed: { sources: [in.txt], outputs: ["dist/*.txt"], run: true }
        db: { service: true, run: sleep 30 }
        itest: { deps: [db], sources: [in.txt], run: true }
        deploy: { secrets: [DEPLOY_KEY], sources: [in.txt], run: true }
        all: { deps: [build, loose, globbed] }
      """)
    defer { project.remove() }
    let content = UUID().uuidString
    try project.write("in.txt", content)
    let plan = try run(project, ["-n", "all", "itest", "deploy"])
    #expect(plan.status == 0)
    #expect(plan.stdout.contains("runs remotely on \(Self.casd)"), "\(plan.stdout)")
    #expect(plan.stdout.contains("runs here: it has no sources"), "\(plan.stdout)")
    #expect(plan.stdout.contains("runs here: output 'dist/*.txt' is a pattern"), "\(plan.stdout)")
    #expect(plan.stdout.contains("runs here: it uses service 'db', which runs here"), "\(plan.stdout)")
    #expect(plan.stdout.contains("runs here: it reads the secret DEPLOY_KEY, kept on this machine"), "\(plan.stdout)")
    let output = try run(project, ["all"])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(try reasons(project)["build"] == "ran remotely on \(Self.casd)")
    #expect(project.read("out.txt") == content)
  }

  /// A `sources: auto` task runs remotely once its inputs are known: its first run is traced
  /// here; after an edit of a file it read, the worker runs it under `runner-trace` with the
  /// recorded inputs and it is recorded under what it read there (the next run is up to
  /// date); a run that reads a file the recorded inputs did not hold runs here instead, with
  /// the right output, and from then on that file goes to the worker too.
  @Test func aTracedTaskRunsRemotelyOnceItsInputsAreKnown() throws {
    let project = try TaskFileProject(
      """
      tasks:
        build:
          sources: auto
          outputs: [out/app.txt]
          run: mkdir -p out && cat main.txt $(cat list.txt) > out/app.txt
      """)
    defer { project.remove() }
    let seed = UUID().uuidString
    try project.write("main.txt", "main \(seed)\n")
    try project.write("list.txt", "a.txt\n")
    try project.write("a.txt", "a\n")
    try project.write("b.txt", "b\n")
    let remotely = "ran remotely on \(Self.casd)"
    let first = try run(project, ["build", "--remote-exec", Self.casd])
    #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
    #expect(try reasons(project)["build"] != remotely, "no recorded inputs: traced here")
    try project.write("main.txt", "main \(seed) edited\n")
    let edited = try run(project, ["build", "--remote-exec", Self.casd])
    #expect(edited.status == 0, "\(edited.stdout)\(edited.stderr)")
    #expect(try reasons(project)["build"] == remotely)
    #expect(project.read("out/app.txt") == "main \(seed) edited\na\n")
    let noOp = try run(project, ["build", "--remote-exec", Self.casd])
    #expect(noOp.status == 0 && noOp.stderr.contains("0 executed"), "\(noOp.stderr)")
    // The worker has no b.txt (the recorded inputs do not name it): the run is not kept.
    try project.write("list.txt", "a.txt b.txt\n")
    let widened = try run(project, ["build", "--remote-exec", Self.casd])
    #expect(widened.status == 0, "\(widened.stdout)\(widened.stderr)")
    #expect(try reasons(project)["build"] != remotely)
    let states = try events(project).compactMap { $0["reason"] as? String }
    #expect(states.contains { $0.contains("b.txt") && $0.hasPrefix("to run here") }, "\(states)")
    #expect(project.read("out/app.txt") == "main \(seed) edited\na\nb\n")
    try project.write("b.txt", "b edited\n")
    let again = try run(project, ["build", "--remote-exec", Self.casd])
    #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
    #expect(try reasons(project)["build"] == remotely)
    #expect(project.read("out/app.txt") == "main \(seed) edited\na\nb edited\n")
  }

  /// What the worker lacks and this machine has makes a traced task run here, with the output
  /// a local run gives: a look into `.git`, a file appended to that an earlier run left here,
  /// a path of this checkout named in full.
  @Test(arguments: [
    "cat .git/HEAD 2>/dev/null >> out/v.txt || true",
    "echo again >> notes.log",
    "cat \"$ROOT/main.txt\" > /dev/null 2>&1 || true",
  ])
  func whatTheWorkerLacksMakesATracedTaskRunHere(extra: String) throws {
    let project = try TaskFileProject(
      """
      tasks:
        build:
          sources: auto
          outputs: [out/v.txt]
          env: { ROOT: "${{ runner.root }}" }
          run: mkdir -p out && cat main.txt > out/v.txt && \(extra)
      """)
    defer { project.remove() }
    let seed = UUID().uuidString
    try project.write(".git/HEAD", "ref: refs/heads/main\n")
    try project.write("main.txt", "main \(seed)\n")
    try project.write("notes.log", "first\n")
    #expect(try run(project, ["build", "--remote-exec", Self.casd]).status == 0)
    try project.write("main.txt", "main \(seed) edited\n")
    let edited = try run(project, ["build", "--remote-exec", Self.casd])
    #expect(edited.status == 0, "\(edited.stdout)\(edited.stderr)")
    #expect(try reasons(project)["build"] != "ran remotely on \(Self.casd)")
    let states = try events(project).compactMap { $0["reason"] as? String }
    #expect(states.contains { $0.hasPrefix("to run here: its remote run") }, "\(states)")
    #expect(project.read("out/v.txt")?.hasPrefix("main \(seed) edited\n") == true)
  }

  /// The C program on the worker: `cc` there, traced by `runner-trace`; a header edit
  /// compiles remotely and the link, which reads the object its dependency made, too; a header
  /// made in the include directory searched first (a path the last run looked up in vain)
  /// goes to the worker and is the one used. (`gcc`: the worker binds only `/usr`, and `cc` is a
  /// link through `/etc/alternatives`.)
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gcc"), "needs /usr/bin/gcc"))
  func aCProgramBuildsRemotelyTracedAfterAHeaderEdit() throws {
    let project = try TaskFileProject(
      """
      tasks:
        compile:
          run: mkdir -p out && gcc -Ilocal -Iinclude -c src/main.c -o out/main.o
          sources: auto
          outputs: [out/main.o]
        build:
          deps: [compile]
          run: gcc out/main.o -o out/app
          sources: auto
          outputs: [out/app]
      """)
    defer { project.remove() }
    let seed = UUID().uuidString
    try project.write("include/util.h", "#define GREETING \"hello \(seed)\"\n")
    try project.write(
      "src/main.c", "#include <stdio.h>\n#include \"util.h\"\nint main(void) { puts(GREETING); return 0; }\n")
    try FileManager.default.createDirectory(
      at: project.directory.appendingPathComponent("local"), withIntermediateDirectories: true)
    let remotely = "ran remotely on \(Self.casd)"
    #expect(try run(project, ["build", "--remote-exec", Self.casd]).status == 0)
    try project.write("include/util.h", "#define GREETING \"bye \(seed)\"\n")
    let edited = try run(project, ["build", "--remote-exec", Self.casd])
    #expect(edited.status == 0, "\(edited.stdout)\(edited.stderr)")
    #expect(try reasons(project) == ["compile": remotely, "build": remotely])
    #expect(try TaskFileProject.shell("./out/app", in: project.directory) == "bye \(seed)\n")
    try project.write("local/util.h", "#define GREETING \"local \(seed)\"\n")
    let shadowed = try run(project, ["build", "--remote-exec", Self.casd])
    #expect(shadowed.status == 0, "\(shadowed.stdout)\(shadowed.stderr)")
    #expect(try reasons(project) == ["compile": remotely, "build": remotely])
    #expect(try TaskFileProject.shell("./out/app", in: project.directory) == "local \(seed)\n")
  }

  /// A server down at the start, or one that never answers: one warning, every task runs here,
  /// exit 0, in bounded time.
  @Test(arguments: [false, true])
  func aFaultyServerMakesTasksRunHere(listening: Bool) throws {
    let server = LocalSocket(listening: listening)
    if !listening { server.close() }
    defer { if listening { server.close() } }
    let project = try TaskFileProject(
      """
      tasks:
        a: { sources: [in.txt], outputs: [a.txt], run: cp in.txt a.txt }
        b: { sources: [in.txt], outputs: [b.txt], run: cp in.txt b.txt }
        all: { deps: [a, b] }
      """)
    defer { project.remove() }
    try project.write("in.txt", "x")
    let output = try run(
      project, ["all", "--remote-exec", "grpc://127.0.0.1:\(server.port)", "--remote-timeout", "1s"])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read("a.txt") == "x" && project.read("b.txt") == "x")
    let warnings = output.stderr.components(separatedBy: "running tasks here from now on").count - 1
    #expect(warnings == 1, "\(output.stderr)")
    #expect(output.stderr.contains("(turned off after a fault): 0 executed"), "\(output.stderr)")
  }
}
