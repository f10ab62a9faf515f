import Foundation
import Testing

/// Issue 19: what real clients found.
@Suite struct PeopleAndCITests {
  /// `run: []` crashed `runner -n` (index out of range) while a run succeeded: it is now an
  /// error at its line for every command.
  @Test(arguments: [["a"], ["-n", "a"], ["--graph", "json", "a"], ["--list"]])
  func anEmptyRunListIsAnErrorForEveryCommand(arguments: [String]) throws {
    let project = try TaskFileProject("tasks:\n  a: {run: []}\n")
    defer { project.remove() }
    let output = try project.run(arguments)
    #expect(output.status == 2, "\(output.stdout)\(output.stderr)")
    #expect(output.stderr.contains("tasks.yml:2:12: error: 'run' of task 'a' is an empty list"), "\(output.stderr)")
  }

  @Test func dashCapitalVIsTheVersion() throws {
    let project = try TaskFileProject("tasks:\n  a: 'true'\n")
    defer { project.remove() }
    let short = try project.run(["-V"])
    let long = try project.run(["--version"])
    #expect(short.status == 0)
    #expect(!short.stdout.isEmpty && short.stdout == long.stdout)
  }

  /// no-color.org: an empty NO_COLOR does nothing; a non-empty one wins over CLICOLOR_FORCE.
  @Test(arguments: [
    (["CLICOLOR_FORCE": "1", "NO_COLOR": ""], true),
    (["CLICOLOR_FORCE": "1", "NO_COLOR": "1"], false),
    (["CLICOLOR_FORCE": "1"], true),
  ])
  func noColorAndClicolorForce(environment: [String: String], coloured: Bool) throws {
    let project = try TaskFileProject("tasks:\n  a: 'true'\n")
    defer { project.remove() }
    var environment = environment
    if environment["NO_COLOR"] == nil { environment["NO_COLOR"] = "" }
    let output = try project.run(["a"], environment: environment)
    #expect(output.stdout.contains("\u{1B}[") == coloured, "\(environment): \(output.stdout)")
  }
}

extension PeopleAndCITests {
  /// `cd examples && runner failure-demo.yml` annotated `file=failure-demo.yml`: paths are
  /// relative to GITHUB_WORKSPACE, also through a symlink to it.
  @Test func annotationsNameTheFileFromTheWorkspace() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("ci/tasks.yml", "tasks:\n  bad: 'exit 3'\n")
    _ = try project.shell("ln -s \"$PWD\" link")
    // From a sibling folder, through `..`: still `ci/tasks.yml`.
    try FileManager.default.createDirectory(
      at: project.directory.appendingPathComponent("other"), withIntermediateDirectories: true)
    let sibling = try BinaryRunner.run(
      ["-f", "../ci/tasks.yml", "bad"], in: project.directory.appendingPathComponent("other"),
      environment: ["GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": project.directory.path])
    #expect(sibling.stdout.contains("::error file=ci/tasks.yml,line=2,col=3,"), "\(sibling.stdout)")
    for workspace in [project.directory.path, project.directory.path + "/link"] {
      let output = try BinaryRunner.run(
        ["tasks.yml", "bad"], in: project.directory.appendingPathComponent("ci"),
        environment: ["GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": workspace])
      #expect(output.status == 1)
      #expect(output.stdout.contains("::error file=ci/tasks.yml,line=2,col=3,"), "\(output.stdout)")
    }
  }
}

extension PeopleAndCITests {
  /// Read back by a real XML parser: a CR in output stays a CR, and `skipped` is on
  /// `testsuite` only (the Jenkins xunit schema rejects it on `testsuites`).
  @Test func junitKeepsCarriageReturnsAndPutsSkippedWhereTheSchemaWantsIt() throws {
    let project = try TaskFileProject("tasks:\n  bad: printf 'one\\rtwo\\n'; exit 1\n")
    defer { project.remove() }
    #expect(try project.run("--junit", "report.xml", "bad").status == 1)
    let check = try project.shell(
      """
      python3 - <<'PY'
      import xml.etree.ElementTree as ET
      root = ET.parse("report.xml").getroot()
      print("suites-skipped", "skipped" in root.attrib)
      print("suite-skipped", root.find("testsuite").attrib.get("skipped"))
      print("cr", "one\\rtwo" in root.find("testsuite/testcase/failure").text)
      PY
      """)
    #expect(check == "suites-skipped False\nsuite-skipped 0\ncr True\n", "\(check)")
  }
}

extension PeopleAndCITests {
  /// Which group each output line of `text` was written in (lines `tN …` only), and the
  /// groups opened, in order.
  static func groups(of text: String) -> (lines: [(group: String?, line: String)], opened: [String]) {
    var current: String?
    var lines: [(group: String?, line: String)] = []
    var opened: [String] = []
    for line in text.split(separator: "\n").map(String.init) {
      if line.hasPrefix("::group::") {
        current = String(line.dropFirst("::group::".count))
        opened.append(current!)
      } else if line == "::endgroup::" {
        current = nil
      } else if line.hasPrefix("t"), line.contains(" line ") || line.contains("-") {
        lines.append((current, line))
      }
    }
    return (lines, opened)
  }

  /// `GITHUB_ACTIONS=true runner -j4`: one group per task, every line in its task's group.
  @Test func githubGroupsEveryTaskAtAnyConcurrency() throws {
    let project = try TaskFileProject(
      "tasks:\n"
        + (0..<4).map { "  t\($0): 'for k in 1 2 3 4 5; do echo \"t\($0) line $k\"; sleep 0.0\($0 + 1); done'\n" }
        .joined())
    defer { project.remove() }
    let output = try project.run(["-j4", "**"], environment: ["GITHUB_ACTIONS": "true"])
    #expect(output.status == 0, "\(output.stdout)")
    let (lines, opened) = Self.groups(of: output.stdout)
    #expect(opened.sorted() == ["t0", "t1", "t2", "t3"], "\(output.stdout)")
    #expect(lines.count == 20, "\(output.stdout)")
    for (group, line) in lines {
      #expect(group.map { line.hasPrefix($0 + " ") } == true, "'\(line)' in group \(group ?? "none"): \(output.stdout)")
    }
  }

  /// SIGTERM mid-run (a background job of `sh` has SIGINT ignored): every line printed so far
  /// is in the log, each inside its task's group.
  @Test func githubGroupsLoseNothingWhenInterrupted() throws {
    let project = try TaskFileProject(
      "tasks:\n"
        + (0..<3).map { "  t\($0): 'echo t\($0)-1; echo t\($0)-2; touch started-\($0); sleep 30'\n" }.joined())
    defer { project.remove() }
    let report = try project.shell(
      """
      GITHUB_ACTIONS=true "$RUNNER" -j3 '**' > out.txt 2>&1 &
      runner=$!
      while [ ! -e started-0 ] || [ ! -e started-1 ] || [ ! -e started-2 ]; do sleep 0.05; done
      sleep 0.2
      kill -TERM $runner
      wait $runner
      echo "status=$?"
      """)
    #expect(report.contains("status=143"), "\(report)")
    let text = project.read("out.txt") ?? ""
    let (lines, _) = Self.groups(of: text)
    #expect(lines.count == 6, "\(text)")
    for (group, line) in lines {
      #expect(group.map { line.hasPrefix($0 + "-") } == true, "'\(line)' in group \(group ?? "none"): \(text)")
    }
  }
}

extension PeopleAndCITests {
  /// A report path that is a symlink is written through (the link stays); a FIFO and
  /// `>(cat)` get the report from runner directly; a device node is never replaced.
  @Test func reportsWriteThroughLinksFIFOsAndDevices() throws {
    let project = try TaskFileProject("tasks:\n  t: 'true'\n")
    defer { project.remove() }
    let report = try project.shell(
      """
      mkdir reports && ln -s reports/real.xml link.xml
      "$RUNNER" --junit link.xml t > /dev/null
      echo "link=$(test -L link.xml && echo yes) real=$(grep -c '<testsuite ' reports/real.xml)"
      mkfifo pipe.json
      cat pipe.json > got.json &
      "$RUNNER" --trace pipe.json t > /dev/null
      wait
      echo "fifo=$(test -p pipe.json && echo yes) got=$(grep -c traceEvents got.json)"
      bash -c '"$RUNNER" --junit >(cat > sub.xml) t > /dev/null; echo "status=$?"'
      sleep 0.2
      echo "sub=$(grep -c '<testsuite ' sub.xml)"
      "$RUNNER" --trace /dev/full t > /dev/null 2> full.txt
      echo "full=$? device=$(test -c /dev/full && echo yes)"
      "$RUNNER" --junit /dev/stdout t > log.txt
      echo "stdout=$(grep -c '✓ t' log.txt)$(grep -c '<testsuites' log.txt)"
      ln -s loop1 loop2 && ln -s loop2 loop1
      "$RUNNER" --junit loop1 t > /dev/null 2> loop.txt
      echo "loop=$? $(test -L loop1 && echo still-a-link)"
      """)
    #expect(report.contains("link=yes real=1"), "\(report)")
    #expect(report.contains("fifo=yes got=1"), "\(report)")
    #expect(report.contains("status=0"), "\(report)")
    #expect(report.contains("sub=1"), "\(report)")
    #expect(report.contains("full=2 device=yes"), "\(report)")
    #expect(report.contains("stdout=11"), "the report follows the run's lines, not over them: \(report)")
    #expect(report.contains("loop=2 still-a-link"), "\(report)")
    #expect(project.read("full.txt")?.contains("/dev/full") == true)
  }
}

extension PeopleAndCITests {
  /// Every slice of a shell task says how its command ended: a retried first attempt, a
  /// timed-out task (`signal`), a task cancelled by fail-fast.
  @Test func traceSlicesSayHowEachAttemptEnded() throws {
    let project = try TaskFileProject(
      """
      tasks:
        flaky: { run: 'test -e again || { touch again; exit 3; }', retries: 1 }
        slow: { run: 'sleep 5', timeout: 200ms }
        bystander: { run: 'sleep 5' }
      """)
    defer { project.remove() }
    _ = try project.run(["-k", "-j3", "--trace", "kept.json", "flaky", "slow"])
    _ = try project.run(["-j3", "--trace", "stopped.json", "slow", "bystander"])
    let check = try project.shell(
      """
      python3 - <<'PY'
      import json
      spans = [e for f in ("kept.json", "stopped.json") for e in json.load(open(f))["traceEvents"] if e["ph"] == "X"]
      for e in sorted(spans, key=lambda e: (e["name"], e["args"]["attempt"])):
          a = e["args"]
          print(e["name"], a["attempt"], a["state"], a.get("exit"), a.get("signal"))
      PY
      """)
    #expect(check.contains("flaky 1 failed 3 None"), "\(check)")
    #expect(check.contains("flaky 2 succeeded 0 None"), "\(check)")
    #expect(check.contains("slow 1 failed None 15"), "\(check)")
    #expect(check.contains("bystander 1 cancelled None 15"), "\(check)")
  }
}

extension PeopleAndCITests {
  static let eventsDoc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/events.md")

  /// docs/events.md's complete log is what runner writes for its file: the same events with
  /// the same fields in the same order (times and durations aside; concurrent tasks' events
  /// compared as a set). Its interrupted `run_finished` example has the fields a SIGTERM gives.
  @Test func theEventsDocMatchesRealOutput() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try FileManager.default.copyItem(
      at: Self.eventsDoc, to: project.directory.appendingPathComponent("events.md"))
    try project.write("stop.yml", "tasks:\n  long: 'touch started; sleep 30'\n")
    let report = try project.shell(
      """
      python3 - 2>&1 <<'PY'
      import json, re, subprocess, os, time
      doc = open("events.md").read()
      part = doc[doc.index("## A complete log"):]
      yaml = re.search(r"```yaml\\n(.*?)```", part, re.S).group(1)
      documented = re.search(r"```json\\n(.*?)```", part, re.S).group(1).splitlines()
      open("ev.yml", "w").write(yaml)
      command = re.search(r"`runner (ev.yml [^`]*)`", part).group(1).replace("'", "").split()
      subprocess.run([os.environ["RUNNER"], *command],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
      def normal(line):
          event = json.loads(line)
          event.pop("time", None); event.pop("duration", None)
          if "reason" in event:
              event["reason"] = re.sub(r"\\d+(\\.\\d+)?(ms|s)\\b", "T", event["reason"])
          return json.dumps(event)
      real = sorted(normal(l) for l in open("ev.jsonl"))
      want = sorted(normal(l) for l in documented)
      print("complete-log", "same" if real == want else "differs:\\n" + "\\n".join(sorted(set(real) ^ set(want))))
      runner = subprocess.Popen([os.environ["RUNNER"], "stop.yml", "--events", "stop.jsonl", "long"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
      while not os.path.exists("started"): time.sleep(0.05)
      runner.terminate(); runner.wait()
      last = list(json.loads(open("stop.jsonl").read().splitlines()[-1]).items())
      example = [l for l in doc.splitlines() if '"interrupted_by"' in l and l.startswith("{")][0]
      keys = lambda items: [k for k, _ in items]
      print("interrupted", "same" if keys(last) == keys(json.loads(example).items()) else f"{last} vs {example}",
            dict(last)["exit_code"], dict(last)["interrupted_by"])
      PY
      """)
    #expect(report.contains("complete-log same"), "\(report)")
    #expect(report.contains("interrupted same 143 SIGTERM"), "\(report)")
  }
}

extension PeopleAndCITests {
  static let junitSchema = BinaryRunner.packageRoot.appendingPathComponent(
    "Tests/RunnerCLITests/Fixtures/junit-schema/junit.xsd")

  /// The JUnit report validates with xmllint against the schema CI servers use (`skipped` is
  /// not allowed on `testsuites`), with a failure, a skipped task and a CR in the output.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint")))
  func junitValidatesAgainstTheXunitSchema() throws {
    let project = try TaskFileProject(
      "tasks:\n  ok: 'true'\n  bad: printf 'a\\rb\\n'; exit 1\n  after: {deps: [bad], run: 'true'}\n")
    defer { project.remove() }
    #expect(try project.run("-k", "--junit", "report.xml", "**").status == 1)
    let out = try project.shell("xmllint --noout --schema '\(Self.junitSchema.path)' report.xml 2>&1; echo status=$?")
    #expect(out.contains("report.xml validates") && out.contains("status=0"), "\(out)")
  }
}
