import Foundation
import Testing

/// Issue 18's points done so far: a command gate's environment, a declared output never
/// created, a missing TMPDIR.
@Suite struct ReliabilityTests {
  @Test func aCommandGateSeesTheFilesAndTheTasksEnv() throws {
    let project = try TaskFileProject(
      """
      env: { FROM_FILE: f }
      tasks:
        a:
          env: { FROM_TASK: t }
          wait_for: { command: 'test "$FROM_FILE/$FROM_TASK" = f/t', timeout: 2s }
          run: echo gate held
      """)
    defer { project.remove() }
    let output = try project.run("a")
    #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
    #expect(output.stdout.contains("a | gate held"))
  }

  @Test func aDeclaredOutputNeverCreatedFailsTheTaskAndIsNeverUpToDate() throws {
    let project = try TaskFileProject(
      """
      tasks:
        typo: { sources: [in.txt], outputs: [out/never.txt], run: 'mkdir -p out && cp in.txt out/typo.txt' }
        plain: { outputs: [gone.txt], run: 'true' }
      """)
    defer { project.remove() }
    try project.write("in.txt", "x\n")
    let first = try project.run("typo")
    #expect(first.status == 1)
    #expect(first.stdout.contains("declared output 'out/never.txt' was not created"), "\(first.stdout)")
    let again = try project.run("typo")
    #expect(again.status == 1)
    #expect(!again.stdout.contains("up to date"))
    let plain = try project.run("plain")
    #expect(plain.status == 1)
    #expect(plain.stdout.contains("declared output 'gone.txt' was not created"))
  }

  @Test func aFIFOOrADeviceAmongSourcesNeverHangsTheRun() throws {
    let project = try TaskFileProject(
      """
      tasks:
        t: { sources: ["*"], outputs: [out.txt], run: 'echo ran > out.txt' }
        named:
          sources: [in.fifo, /dev/zero]
          run: 'true'
        picture: { image: [{ load: in.fifo }, { save: out.png }] }
      """)
    defer { project.remove() }
    #expect(mkfifo(project.directory.appendingPathComponent("in.fifo").path, 0o644) == 0)
    // Under `timeout`: before, runner blocked for ever in open() of the FIFO, deaf to signals.
    // A glob passes over the FIFO.
    for arguments in ["t", "-n t", "--graph json t", "t", "-n named", "--graph json named"] {
      let status = try project.shell("timeout 20 \"$RUNNER\" \(arguments) > /dev/null 2>&1; echo $?")
      #expect(status == "0\n", "runner \(arguments) exited \(status)")
    }
    #expect(project.read("out.txt") == "ran\n")
    // Named outright, each is an error at the task, before anything runs.
    let named = try project.shell("timeout 20 \"$RUNNER\" named 2>&1; echo status=$?")
    #expect(named.contains("tasks.yml:3:3: error: 'in.fifo' in the 'sources' of task 'named' is a FIFO"), "\(named)")
    #expect(named.contains("'/dev/zero' in the 'sources' of task 'named' is a character device"), "\(named)")
    #expect(named.contains("status=2"), "\(named)")
    // An image load of a FIFO fails at once instead of waiting for a writer.
    let load = try project.shell("timeout 20 \"$RUNNER\" picture 2>&1; echo status=$?")
    #expect(load.contains("is not a regular file"), "\(load)")
    #expect(load.contains("status=1"), "\(load)")
  }

  @Test func aSymlinkOutputPointingNowhereIsStillCreated() throws {
    let project = try TaskFileProject(
      "tasks:\n  link: { outputs: [latest], run: 'ln -sfn /nonexistent/build-42 latest' }\n")
    defer { project.remove() }
    let output = try project.run("link")
    #expect(output.status == 0, "\(output.stdout)")
  }

  @Test func nohupKeepsSIGHUPIgnored() throws {
    let project = try TaskFileProject("tasks:\n  t: 'sleep 0.5; echo done'\n")
    defer { project.remove() }
    // `exec`: the shell becomes runner, with SIGHUP ignored as nohup leaves it.
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/sh")
    shell.arguments = ["-c", "trap '' HUP; exec \"$RUNNER\" t"]
    shell.currentDirectoryURL = project.directory
    shell.environment = ProcessInfo.processInfo.environment.merging(["RUNNER": BinaryRunner.executable.path]) { $1 }
    let out = Pipe()
    shell.standardOutput = out
    try shell.run()
    usleep(200_000)
    kill(shell.processIdentifier, SIGHUP)
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    shell.waitUntilExit()
    #expect(shell.terminationStatus == 0, "\(text)")
    #expect(text.contains("t | done"), "\(text)")
  }

  @Test func aLowSoftFileLimitIsRaisedForRunnerAndKeptForTasks() throws {
    let project = try TaskFileProject(
      "tasks:\n" + (0..<60).map { "  t\($0): 'sleep 0.3; ulimit -n > n\($0)'\n" }.joined())
    defer { project.remove() }
    // 60 tasks at once need more than 64 descriptors: runner failed them with EMFILE.
    let status = try project.shell("ulimit -S -n 64 && \"$RUNNER\" -j 60 '**' > out.txt 2>&1; echo $?")
    #expect(status == "0\n", "\(project.read("out.txt") ?? "")")
    #expect(project.read("n0") == "64\n", "a task sees the limit runner was started with")
  }

  /// Ctrl-Z (SIGTSTP) stops the run's tasks with runner; SIGCONT (`fg`) continues them, and
  /// the run ends as if nothing happened. A task sees SIGTSTP and SIGHUP with their defaults.
  @Test func ctrlZStopsTheTasksWithRunnerAndFgContinuesThem() throws {
    let project = try TaskFileProject(
      """
      tasks:
        t: |
          echo $$ > pid
          grep -E '^SigIgn' /proc/$$/status > signals
          while [ ! -e go ]; do sleep 0.05; done
          echo done
      """)
    defer { project.remove() }
    let report = try project.shell(
      """
      "$RUNNER" t > out.txt 2>&1 &
      runner=$!
      while [ ! -s pid ]; do sleep 0.05; done
      kill -TSTP $runner
      # Both stopped, within 10 s (a loaded machine may catch the task in a system call first).
      for _ in $(seq 1 200); do
        r=$(cut -d' ' -f3 /proc/$runner/stat) t=$(cut -d' ' -f3 /proc/$(cat pid)/stat)
        # A shell caught in vfork waits in D for its child, which the stop caught before its
        # exec: stopped all the same when that child is.
        if [ "$t" = D ]; then
          for c in $(cat /proc/$(cat pid)/task/*/children 2>/dev/null); do
            [ "$(cut -d' ' -f3 /proc/$c/stat 2>/dev/null)" = T ] && t=T
          done
        fi
        [ "$r$t" = TT ] && break
        sleep 0.05
      done
      echo "runner=$r task=$t"
      touch go
      kill -CONT $runner
      wait $runner
      echo "status=$?"
      """)
    #expect(report.contains("runner=T task=T"), "\(report)")
    #expect(report.contains("status=0"), "\(report) \(project.read("out.txt") ?? "")")
    #expect(project.read("out.txt")?.contains("t | done") == true)
    // SigIgn must not hold SIGHUP (bit 0) or SIGTSTP (bit 19): runner ignores them to watch them.
    let line = project.read("signals") ?? ""
    let mask = UInt64(
      line.split(separator: "\t").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "", radix: 16)
    #expect(mask.map { $0 & (1 << 0 | 1 << 19) } == 0, "\(line)")
  }

  /// A hard limit too low for the run's concurrency: tasks wait for descriptors instead of
  /// failing with EMFILE.
  @Test func tasksQueueWhenTheFileLimitStillBinds() throws {
    let project = try TaskFileProject(
      "tasks:\n" + (0..<40).map { "  t\($0): 'sleep 0.1; echo ran'\n" }.joined())
    defer { project.remove() }
    let status = try project.shell("ulimit -n 48 && \"$RUNNER\" -j 40 '**' > out.txt 2>&1; echo $?")
    let output = project.read("out.txt") ?? ""
    #expect(status == "0\n", "\(output)")
    #expect(output.contains("40 task(s): 40 succeeded"), "\(output)")
  }

  @Test func temporaryFilesOfAKilledRunnerAreNeverSourcesAndAreRemoved() throws {
    let project = try TaskFileProject(
      "tasks:\n  t: { sources: [src], outputs: [out/a.txt], run: 'mkdir -p out; ls -A src > out/a.txt' }\n")
    defer { project.remove() }
    // What a runner killed mid-write leaves (its pid, 999 999 999, is no running process).
    try project.write("src/real.txt", "x\n")
    try project.write("src/.real.txt.runner-tmp-999999999-1", "half")
    try project.write(".runner/.state.runner-tmp-999999999-2", "half")
    try project.write(".runner/cache/ab/.entry.runner-tmp-999999999-3", "half")
    // Without a pid, or too recent (a writer in another PID namespace reads as dead): kept.
    try project.write(".runner/.runner-tmp-Ab12Cd", "kept")
    try project.write(".runner/.fresh.runner-tmp-999999999-4", "kept")
    for old in [".runner/.state.runner-tmp-999999999-2", ".runner/cache/ab/.entry.runner-tmp-999999999-3"] {
      try FileManager.default.setAttributes(
        [.modificationDate: Date(timeIntervalSinceNow: -3600)],
        ofItemAtPath: project.directory.appendingPathComponent(old).path)
    }
    let output = try project.run("t", environment: ["RUNNER_CACHE_MAX": "1"])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read(".runner/.state.runner-tmp-999999999-2") == nil)
    #expect(project.read(".runner/cache/ab/.entry.runner-tmp-999999999-3") == nil)
    #expect(project.read(".runner/.runner-tmp-Ab12Cd") == "kept")
    #expect(project.read(".runner/.fresh.runner-tmp-999999999-4") == "kept")
    // A directory pattern takes hidden files, but never a temporary one: touching it re-runs nothing.
    try project.write("src/.real.txt.runner-tmp-999999999-1", "changed")
    let again = try project.run("t")
    #expect(again.stdout.contains("✓ t up to date"), "\(again.stdout)")
  }

  @Test func aMemoryLimitTooSmallIsAnErrorNotAHang() throws {
    let project = try TaskFileProject("tasks:\n  a: echo\n")
    defer { project.remove() }
    // Under 200 MB runner hung in libdispatch's thread-creation retries; `timeout` bounds it.
    let text = try project.shell("ulimit -v 150000 && timeout 20 \"$RUNNER\" a 2>&1; echo status=$?")
    #expect(text.contains("error: a memory limit of 146 MiB (ulimit -v) is below the 512 MiB"), "\(text)")
    #expect(text.contains("status=2"), "\(text)")
  }

  @Test func anOutputFileThatCannotBeWrittenFailsTheTask() throws {
    // The scratch directory removed under the task (a tmp cleaner): the write fails, and with
    // errexit the task fails instead of handing its dependents an empty value.
    let project = try TaskFileProject(
      """
      tasks:
        gen: 'rm -rf "$(dirname "$RUNNER_OUTPUT")"; echo v=1 >> "$RUNNER_OUTPUT"; echo after'
        use: { deps: [gen], env: { V: "${{ deps.gen.outputs.v }}" }, run: 'echo "got [$V]"' }
      """)
    defer { project.remove() }
    let output = try project.run("use")
    #expect(output.status == 1, "\(output.stdout)")
    #expect(!output.stdout.contains("gen | after"))
    #expect(!output.stdout.contains("got ["))
  }

  @Test func aMissingTMPDIRIsNamedWithItsCause() throws {
    let project = try TaskFileProject("tasks:\n  a: echo\n")
    defer { project.remove() }
    let output = try project.run("a", environment: ["TMPDIR": "/nonexistent/tmp"])
    #expect(output.status == 2)
    #expect(
      output.stderr.contains(
        "cannot create a temporary directory in '/nonexistent/tmp' (TMPDIR): no such file or directory"),
      "\(output.stderr)")
  }
}
