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

  /// Every part of a task that calls others tells its commands the task's own name.
  @Test func thePartsOfACallerAreTheCallerToTheirCommands() throws {
    let project = try TaskFileProject(
      "tasks:\n  other: echo \"$RUNNER_TASK\" >> log\n"
        + "  caller:\n    run:\n      - echo \"$RUNNER_TASK\" >> log\n      - task: other\n      - echo \"$RUNNER_TASK\" >> log\n"
    )
    defer { project.remove() }
    let output = try project.run("-j1", "caller")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read("log") == "caller\nother\ncaller\n", "\(output.stdout)")
  }

  @Test func aFailingCallStopsTheList() throws {
    let project = try TaskFileProject(
      "tasks:\n  bad: 'exit 3'\n  a:\n    run:\n      - echo one >> log\n      - task: bad\n      - echo two >> log\n")
    defer { project.remove() }
    let output = try project.run("a")
    #expect(output.status == 1)
    // The call runs after the commands before it, and the list stops at it.
    #expect(project.read("log") == "one\n", "\(output.stdout)")
  }

  static let inSequence = """
    tasks:
      prep:  { run: echo prep >> log }
      step:  { deps: [prep], run: echo step >> log }
      main:
        deps: [prep]
        run:
          - echo one >> log
          - task: step
          - echo two >> log
    """

  @Test(arguments: ["1", "2", "4"]) func aCallRunsWhereItStandsAtEveryJobCount(jobs: String) throws {
    let project = try TaskFileProject(Self.inSequence)
    defer { project.remove() }
    let output = try project.run("-j", jobs, "main")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read("log") == "prep\none\nstep\ntwo\n", "\(output.stdout)")
    // The plan puts the call in the stage after the part before it.
    let plan = try project.run("-n", "main")
    #expect(plan.stdout.contains("4 stage(s)"), "\(plan.stdout)")
  }

  @Test func aCalledTaskNamedBesideItsCallerStillWaitsForThePartBeforeTheCall() throws {
    let project = try TaskFileProject(Self.inSequence)
    defer { project.remove() }
    let output = try project.run("-j", "4", "step", "main")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read("log") == "prep\none\nstep\ntwo\n", "\(output.stdout)")
  }

  @Test func aCallOfATaskTheCallerAlreadyWaitedForReusesIt() throws {
    let project = try TaskFileProject(
      """
      tasks:
        step: echo step >> log
        main:
          deps: [step]
          run:
            - echo one >> log
            - task: step
            - echo two >> log
            - task: step
      """)
    defer { project.remove() }
    let output = try project.run("-j", "2", "main")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read("log") == "step\none\ntwo\n", "\(output.stdout)")
  }

  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed"))
  func callsRunInTheOrderGoTaskRunsThem() throws {
    let project = try TaskFileProject(Self.inSequence)
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      tasks:
        prep: { run: once, cmds: [echo prep >> log] }
        step: { deps: [prep], cmds: [echo step >> log] }
        main:
          deps: [prep]
          cmds:
            - echo one >> log
            - task: step
            - echo two >> log
      """)
    let (status, _) = try ImportOrderTests.run(ImportOrderTests.task!, ["main"], in: project.directory)
    #expect(status == 0)
    let original = project.read("log")
    #expect(original == "prep\none\nstep\ntwo\n")
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("log"))
    #expect(try project.run("main").status == 0)
    #expect(project.read("log") == original)
  }

  /// `for:` repeats a call over values, in order, as go-task's `for:` on a call does.
  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed"))
  func aCallRepeatedOverValuesRunsAsGoTaskRunsIt() throws {
    let project = try TaskFileProject(
      """
      tasks:
        build: { params: { ARCH: none }, run: 'echo "build $ARCH" >> log' }
        dist:
          run:
            - echo start >> log
            - task: build
              for: [amd64, arm64, amd64]
              with: { ARCH: "${{ item }}" }
            - echo packed >> log
      """)
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      tasks:
        build: { cmds: ['echo "build {{.ARCH}}" >> log'] }
        dist:
          cmds:
            - echo start >> log
            - for: [amd64, arm64]
              task: build
              vars: { ARCH: '{{.ITEM}}' }
            - echo packed >> log
      """)
    let (status, _) = try ImportOrderTests.run(ImportOrderTests.task!, ["dist"], in: project.directory)
    #expect(status == 0)
    let original = project.read("log")
    #expect(original == "start\nbuild amd64\nbuild arm64\npacked\n")
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("log"))
    // runner's list repeats amd64: a node that already ran is reused, as for any call.
    let output = try project.run("dist")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read("log") == original, "\(output.stdout)")
  }

  /// `for:` items are plain text: one holding `${{` is an error at its place; `${{item}}` may
  /// be written with any blanks inside the braces.
  @Test func forItemsArePlainText() throws {
    let project = try TaskFileProject(
      """
      tasks:
        greet: { params: { WHO: x }, run: 'echo "hi $WHO" >> log' }
        all:
          run:
            - task: greet
              for: [a, b]
              with: { WHO: "${{item}}-${{  item  }}" }
      """)
    defer { project.remove() }
    #expect(try project.run("all").status == 0)
    #expect(project.read("log") == "hi a-a\nhi b-b\n")
    try project.write(
      "tasks.yml",
      "tasks:\n  greet: { params: { WHO: x }, run: 'true' }\n  all:\n    run:\n"
        + "      - { task: greet, for: ['${{ runner.os }}'], with: { WHO: '${{ item }}' } }\n")
    let output = try project.run("all")
    #expect(output.status == 2)
    #expect(
      output.stderr.contains("tasks.yml:5:") && output.stderr.contains("its items are plain text"), "\(output.stderr)")
  }

  static let dispatch = """
    params: { os: linux }
    tasks:
      check: echo check >> log
      apt: { deps: [check], run: echo apt >> log }
      install:
        if: ${{ params.os == 'linux' }}
        run:
          - echo installing >> log
          - task: apt
          - echo installed >> log
      setup: { deps: [install], run: echo setup >> log }
    """

  /// An `if:` on a task with calls: true, the called task's own dependencies start when the
  /// call is reached (as go-task runs them); false, nothing of the task runs, nor what only its
  /// call needed, and its dependents run.
  @Test func anIfOnATaskWithCallsDecidesForTheWholeTaskAndItsCalls() throws {
    let project = try TaskFileProject(Self.dispatch)
    defer { project.remove() }
    let linux = try project.run("-j", "4", "setup")
    #expect(linux.status == 0, "\(linux.stderr)")
    #expect(project.read("log") == "installing\ncheck\napt\ninstalled\nsetup\n", "\(linux.stdout)")
    _ = try project.shell("rm log")
    let mac = try project.run("-j", "4", "--events", "events.jsonl", "setup", "os=mac")
    #expect(mac.status == 0, "\(mac.stderr)")
    #expect(project.read("log") == "setup\n", "\(mac.stdout)")
    let events = project.read("events.jsonl") ?? ""
    #expect(events.contains("not called"), "\(events)")
    // Run on its own, the called task needs no caller.
    _ = try project.shell("rm log")
    #expect(try project.run("apt", "os=mac").status == 0)
    #expect(project.read("log") == "check\napt\n")
  }

  /// A called task that is also needed through `deps` runs whatever the caller's `if:` says.
  @Test func aCalledTaskAlsoNeededThroughDepsRunsWhenTheCallerIsSkipped() throws {
    let project = try TaskFileProject(
      Self.dispatch.replacingOccurrences(of: "setup: { deps: [install]", with: "setup: { deps: [install, apt]"))
    defer { project.remove() }
    let mac = try project.run("-j", "1", "setup", "os=mac")
    #expect(mac.status == 0, "\(mac.stderr)")
    #expect(project.read("log") == "check\napt\nsetup\n", "\(mac.stdout)")
  }

  /// `- run: CMD` with `ignore_error: true`: the list goes past its failure, alone or in a list;
  /// any other failure still stops it.
  @Test func aCommandWhoseErrorIsIgnoredLetsTheListGoOn() throws {
    let project = try TaskFileProject(
      """
      tasks:
        one: { run: [{ run: "exit 3", ignore_error: true }] }
        list:
          run:
            - echo before >> log
            - run: exit 4
              ignore_error: true
            - echo after >> log
            - exit 5
            - echo never >> log
      """)
    defer { project.remove() }
    #expect(try project.run("one").status == 0)
    let output = try project.run("list")
    #expect(output.status == 1)
    #expect(project.read("log") == "before\nafter\n", "\(output.stdout)")
  }

  /// Found in review: a called cleanup; a called task split at calls of its own, defined after
  /// its caller; a matrix called; each waits for the commands before the call.
  @Test func calledCleanupsSplitTasksAndMatricesWaitForTheCommandsBeforeTheCall() throws {
    let project = try TaskFileProject(
      """
      tasks:
        main:
          run:
            - sleep 0.3; echo m-first >> log
            - task: cl
            - task: q
            - task: mx
            - echo m-last >> log
        cl: { always: true, run: echo cl >> log }
        inner: echo inner >> log
        q: { run: [echo q-first >> log, task: inner, echo q-last >> log] }
        mx: { matrix: { v: [a, b] }, env: { V: "${{ matrix.v }}" }, run: echo "mx-$V" >> log }
      """)
    defer { project.remove() }
    let output = try project.run("-j", "4", "q", "mx", "main")
    #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
    let log = (project.read("log") ?? "").split(separator: "\n").map(String.init)
    #expect(log.first == "m-first", "\(log)")
    #expect(log.last == "m-last", "\(log)")
    #expect(log.sorted() == ["cl", "inner", "m-first", "m-last", "mx-a", "mx-b", "q-first", "q-last"], "\(log)")
  }

  /// A service called by a task stays up until the task's last part has ended; a service that
  /// only an uncalled task needed is stopped, and the run ends.
  @Test func calledServicesStayUpForTheCallerAndUncalledOnesStop() throws {
    let project = try TaskFileProject(
      """
      tasks:
        srv: { service: true, run: exec sleep 30 }
        other: sleep 0.2
        m: { run: [task: srv, echo one >> log, task: other, echo two >> log] }
        b: { deps: [srv], run: echo b >> log }
        skipped: { if: "false", run: [echo never >> log, task: b] }
      """)
    defer { project.remove() }
    let report = try project.shell(
      """
      timeout 20 "$RUNNER" m > out.txt 2>&1; echo "m=$?"
      timeout 20 "$RUNNER" skipped >> out.txt 2>&1; echo "skipped=$?"
      """)
    #expect(report == "m=0\nskipped=0\n", "\(report) \(project.read("out.txt") ?? "")")
    #expect(project.read("log") == "one\ntwo\n")
  }

  /// With --keep-going, a call made after another caller failed still runs what it calls.
  @Test func keepGoingRunsCallsPastAnotherCallersFailure() throws {
    let project = try TaskFileProject(
      """
      tasks:
        lib: exit 1
        c: { deps: [lib], run: [echo c1 >> log, task: d] }
        d: echo d >> log
        main: { run: [echo m1 >> log, task: c] }
      """)
    defer { project.remove() }
    let output = try project.run("-k", "lib", "d", "main")
    #expect(output.status == 1)
    #expect(!output.stdout.contains("nothing is running"), "\(output.stdout)")
    #expect(project.read("log")?.contains("d\n") == true, "\(output.stdout)")
  }

  /// `with:` may read the caller's deps' outputs: a value computed once, handed to several
  /// calls, filled in when each call starts.
  @Test func withReadsTheCallersDepsOutputsWhenTheCallStarts() throws {
    let project = try TaskFileProject(
      """
      tasks:
        version: echo "v=1.2.3" >> "$RUNNER_OUTPUT"
        build:
          params: { version: dev }
          env: { TAG: "v${{ params.version }}" }
          run: echo "build $version $TAG" >> log
        package: { params: { version: dev }, run: echo "package $version" >> log }
        release:
          deps: [version]
          run:
            - task: build
              with: { version: "${{ deps.version.outputs.v }}" }
            - task: package
              with: { version: "${{ deps.version.outputs.v }}" }
      """)
    defer { project.remove() }
    let output = try project.run("release")
    #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
    #expect(project.read("log") == "build 1.2.3 v1.2.3\npackage 1.2.3\n", "\(output.stdout)")
    let plan = try project.run("-n", "release")
    #expect(plan.stdout.contains("build[version=${{ deps.version.outputs.v }}]"), "\(plan.stdout)")
  }

  @Test func aWithThatReadsOutputsSaysWhatItCannotSet() throws {
    let project = try TaskFileProject(
      """
      params: { mode: debug }
      tasks:
        version: echo "v=1" >> "$RUNNER_OUTPUT"
        build: { params: { where: out }, dir: "${{ params.where }}", run: echo }
        a: { deps: [version], run: [{ task: build, with: { mode: "${{ deps.version.outputs.v }}" } }] }
        b: { deps: [version], run: [{ task: build, with: { where: "${{ deps.version.outputs.v }}" } }] }
        c: { run: [{ task: build, with: { where: "${{ deps.version.outputs.v }}" } }] }
      """)
    defer { project.remove() }
    let output = try project.run("--list")
    #expect(output.status == 2)
    for expected in [
      "tasks.yml:5:60: error: a 'with:' value that reads outputs may set the called task's own params; 'mode' is its file's",
      "tasks.yml:4:3: error: task 'build' reads param 'where' in 'dir', 'sources', 'outputs' or 'if', which must be known",
      "tasks.yml:7:44: error: 'with' reads outputs of 'version', which is not one of the deps of task 'c' (add it to 'deps')",
    ] {
      #expect(output.stderr.contains(expected), "\(output.stderr)")
    }
  }

  /// `args: pass` hands the words after `--` on to a dependency or a called task.
  @Test func argsPassHandsTheWordsOn() throws {
    let project = try TaskFileProject(
      """
      tasks:
        test: 'echo "test $*" >> log'
        lint: 'echo "lint $*" >> log'
        report: 'echo "report $*" >> log'
        check:
          deps: [{ task: test, args: pass }, lint]
          run:
            - 'echo "check $*" >> log'
            - { task: report, args: pass }
      """)
    defer { project.remove() }
    let output = try project.run("check", "--", "-v", "x")
    #expect(output.status == 0, "\(output.stderr)")
    let log = (project.read("log") ?? "").split(separator: "\n").map(String.init).sorted()
    #expect(log == ["check -v x", "lint ", "report -v x", "test -v x"], "\(log)")
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
