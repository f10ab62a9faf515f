import Foundation
import Testing

/// What `runner -n` and the pictures say about a task beyond its commands.
@Suite struct PlanTests {
  @Test func thePlanShowsConditionsServicesCleanupsAndPrompts() throws {
    let project = try TaskFileProject(
      """
      tasks:
        db: { service: true, run: exec sleep 30 }
        test:
          deps: [db]
          if: ${{ runner.os == 'linux' }}
          preconditions: [test -d .]
          prompt: Really?
          run: echo test
        tidy: { deps: [test], always: true, run: echo tidy }
      """)
    defer { project.remove() }
    let plan = try project.run("-n", "tidy")
    #expect(plan.status == 0, "\(plan.stderr)")
    #expect(plan.stdout.contains("service: kept up while tasks that depend on it run"), "\(plan.stdout)")
    #expect(plan.stdout.contains("if runner.os == 'linux'") || plan.stdout.contains("if ${{"), "\(plan.stdout)")
    #expect(plan.stdout.contains("precondition $ test -d ."), "\(plan.stdout)")
    #expect(plan.stdout.contains("prompt: Really?"), "\(plan.stdout)")
    #expect(plan.stdout.contains("always: a cleanup"), "\(plan.stdout)")
    let dot = try project.run("--graph", "dot", "tidy")
    #expect(dot.stdout.contains("shell · service"), "\(dot.stdout)")
    #expect(dot.stdout.contains("shell · cleanup"), "\(dot.stdout)")
    #expect(dot.stdout.contains("shell · if"), "\(dot.stdout)")
  }

  @Test func aSourceMadeExecutableIsNamedWithItsMode() throws {
    let project = try TaskFileProject("tasks:\n  build: { sources: [tool.sh], outputs: [out], run: cp tool.sh out }\n")
    defer { project.remove() }
    try project.write("tool.sh", "echo hi\n")
    #expect(try project.run(["build"]).status == 0)
    _ = try project.shell("chmod +x tool.sh")
    let plan = try project.run(["-n", "build"])
    #expect(plan.stdout.contains("tool.sh became executable"), "\(plan.stdout)")
  }

  @Test func wordsAfterTheDashesThatNoCommandReadsAreWarnedOf() throws {
    let project = try TaskFileProject("tasks:\n  deaf: echo hi\n  hears: 'echo \"$@\"'\n")
    defer { project.remove() }
    let deaf = try project.run("deaf", "--", "foo")
    #expect(deaf.status == 0)
    #expect(
      deaf.stderr.contains(
        "tasks.yml:2:3: warning: the words after '--' (foo) reach 'deaf' as \"$@\", but its commands never read"),
      "\(deaf.stderr)")
    let hears = try project.run("hears", "--", "foo")
    #expect(hears.stdout.contains("hears | foo"), "\(hears.stdout)")
    #expect(!hears.stderr.contains("warning"), "\(hears.stderr)")
  }

  /// An HTTP cache that refuses the connection is off at once (it cost 10 s a run), with a
  /// warning in plain words.
  @Test func aRefusedHTTPCacheIsOffAtOnce() throws {
    let socket = LocalSocket(listening: false)
    socket.close()
    let project = try TaskFileProject("tasks:\n  a: { sources: [tasks.yml], run: echo hi }\n")
    defer { project.remove() }
    let report = try project.shell(
      "timeout 5 \"$RUNNER\" --remote-cache http://127.0.0.1:\(socket.port)/cache a > out.txt 2>&1; echo \"status=$?\"")
    let out = project.read("out.txt") ?? ""
    #expect(report == "status=0\n", "\(out)")
    #expect(out.contains(": connection refused; going on without the remote cache"), "\(out)")
    let warning = out.split(separator: "\n").first { $0.hasPrefix("warning: remote cache") } ?? ""
    #expect(warning.filter { $0 == "(" }.count == warning.filter { $0 == ")" }.count, "\(warning)")
  }
}
