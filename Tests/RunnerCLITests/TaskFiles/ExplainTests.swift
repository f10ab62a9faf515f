import Foundation
import Testing

/// Why a task runs: `runner --explain TASK`, the reasons of `runner -n`, and the `decided`
/// events, all from the one decision the engine makes (`RunReason`).
@Suite struct ExplainTests {
  static let tasks = """
    tasks:
      gen:
        sources: [g.txt]
        run: echo "v=$(cat g.txt)" >> "$RUNNER_OUTPUT"
      compile:
        deps: [gen]
        key_env: [CC]
        sources: [src/*.c]
        outputs: [out.o]
        run: cat src/*.c > out.o
      all: { deps: [compile] }
      lint: echo lint
    """

  static func project() throws -> TaskFileProject {
    let project = try TaskFileProject(tasks)
    try project.write("g.txt", "1\n")
    try project.write("src/a.c", "a\n")
    return project
  }

  /// The `why` of each `decided` event of a run, by task.
  static func decisions(_ project: TaskFileProject, _ arguments: String..., environment: [String: String] = [:])
    throws -> [String: String]
  {
    let output = try project.run(["--events", "events.jsonl"] + arguments, environment: environment)
    #expect(output.status == 0, "\(output.stderr)")
    var found: [String: String] = [:]
    for line in (project.read("events.jsonl") ?? "").split(separator: "\n") where line.contains("\"decided\"") {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      if let task = object?["task"] as? String, let decision = object?["decision"] as? String,
        let why = object?["why"] as? String
      {
        #expect(found[task] == nil, "a second decided event for \(task)")
        found[task] = "\(decision): \(why)"
      }
    }
    return found
  }

  @Test func explainSaysWhyItRanWhatItWouldDoAndWhatMakesItRun() throws {
    let project = try Self.project()
    defer { project.remove() }
    let before = try project.run("--explain", "compile")
    #expect(before.status == 0)
    #expect(before.stdout.contains("  last recorded: nothing"), "\(before.stdout)")
    #expect(before.stdout.contains("  now: would run: dependency 'gen' will run"), "\(before.stdout)")
    _ = try Self.decisions(project, "all")
    let after = try project.run("--explain", "compile")
    #expect(
      after.stdout == """
        compile (tasks.yml:5:3)
          last recorded: it ran, because no previous run
          now: up to date
          it runs again when its command or directory changes; one of the variables CC, PATH changes; a file \
        matching src/*.c changes, appears or goes (1 recorded); what 'gen' hands on changes; out.o is changed or \
        removed; --force

        """, "\(after.stdout)")
    try project.write("src/a.c", "b\n")
    #expect(try project.run("--explain", "compile").stdout.contains("  now: would run: src/a.c changed\n"))
    let lint = try project.run("--explain", "lint")
    #expect(lint.stdout.contains("no sources: it runs every time a run selects it"), "\(lint.stdout)")
    #expect(try project.run("--explain", "all").stdout.contains("a group: it runs nothing itself"))
    let unknown = try project.run("--explain", "compil")
    #expect(unknown.status == 2)
    #expect(unknown.stderr.contains("did you mean 'compile'?"), "\(unknown.stderr)")
  }

  @Test func eachReasonNamesWhatChanged() throws {
    let project = try Self.project()
    defer { project.remove() }
    #expect(try Self.decisions(project, "all") == ["gen": "run: no previous run", "compile": "run: no previous run"])
    try project.write("src/b.c", "b\n")
    #expect(try project.run("-n", "compile").stdout.contains("would run: src/b.c added"))
    #expect(try Self.decisions(project, "all") == ["compile": "run: src/b.c added"])
    // A variable of its key: named.
    #expect(
      try Self.decisions(project, "all", environment: ["CC": "clang"]) == [
        "compile": "run: environment variable CC changed"
      ])
    // What a dependency hands on: named.
    try project.write("g.txt", "2\n")
    #expect(
      try Self.decisions(project, "all", environment: ["CC": "clang"]) == [
        "gen": "run: g.txt changed", "compile": "run: what 'gen' hands on changed",
      ])
    // The executable bit is in the key.
    _ = try project.shell("chmod +x src/a.c")
    #expect(
      try project.run("-n", "compile", environment: ["CC": "clang"]).stdout.contains(
        "would run: src/a.c became executable"))
    // A missing output comes back from the cache, and says why.
    _ = try Self.decisions(project, "all", environment: ["CC": "clang"])
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("out.o"))
    #expect(
      try Self.decisions(project, "all", environment: ["CC": "clang"]) == ["compile": "restore: out.o is missing"])
    #expect(
      try project.run("--explain", "compile", environment: ["CC": "clang"]).stdout.contains(
        "  last recorded: it was restored from the cache, because out.o is missing\n  now: up to date\n"))
    #expect(
      try Self.decisions(project, "--force", "compile", environment: ["CC": "clang"])["compile"] == "run: --force")
  }

  @Test func aRetryKeepsTheReasonItsFirstAttemptWasGiven() throws {
    let project = try TaskFileProject(
      """
      tasks:
        flaky:
          sources: [x.c]
          retries: 1
          run: 'test -f tried || { touch tried; exit 1; }; rm tried'
      """)
    defer { project.remove() }
    try project.write("x.c", "1\n")
    _ = try project.run("flaky")
    try project.write("x.c", "2\n")
    #expect(try Self.decisions(project, "flaky") == ["flaky": "run: x.c changed"])
    #expect(try project.run("--explain", "flaky").stdout.contains("last recorded: it ran, because x.c changed\n"))
  }

  @Test func aTaskWithCallsIsExplainedByItsFirstPart() throws {
    let project = try TaskFileProject(
      """
      tasks:
        step: echo step
        release:
          sources: [main.c]
          run:
            - task: step
            - echo done
      """)
    defer { project.remove() }
    try project.write("main.c", "1\n")
    #expect(try project.run("release").status == 0)
    let explained = try project.run("--explain", "release")
    #expect(
      explained.stdout.hasPrefix(
        "release (tasks.yml:3:3)\n  last recorded: it ran, because no previous run\n  now: up to date\n"),
      "\(explained.stdout)")
    #expect(explained.stdout.contains("its commands, or those of a task it calls, change"))
  }
}
