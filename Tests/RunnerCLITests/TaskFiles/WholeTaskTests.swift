import Foundation
import Testing

/// `sources` and `outputs` on a task with calls: the whole task is up to date, restored or run
/// as one, and its key covers what its calls reach.
@Suite struct WholeTaskTests {
  static let tasks = """
    tasks:
      compile:
        sources: [lib/*.h]
        run: echo compile >> log
      release:
        sources: [src/*.c]
        outputs: [dist/app]
        run:
          - echo prep; echo prep >> log
          - task: compile
          - mkdir -p dist && cat src/*.c > dist/app && echo packed >> log && echo packing
          - echo "v=$(cat src/a.c)" >> "$RUNNER_OUTPUT"
      after:
        deps: [release]
        env: { V: "${{ deps.release.outputs.v }}" }
        run: echo "after $V" >> log
    """

  static func project() throws -> TaskFileProject {
    let project = try TaskFileProject(tasks)
    try project.write("src/a.c", "a\n")
    try project.write("lib/h.h", "h\n")
    return project
  }

  /// Runs `after`, and returns its log, emptied for the next run.
  static func run(_ project: TaskFileProject, _ arguments: String...) throws -> (log: String, stdout: String) {
    let output = try project.run(arguments + ["after"])
    #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
    defer { try? project.write("log", "") }
    return (project.read("log") ?? "", output.stdout)
  }

  @Test func anUnchangedTaskWithCallsIsUpToDateAndCallsNothing() throws {
    let project = try Self.project()
    defer { project.remove() }
    #expect(try Self.run(project).log == "prep\ncompile\npacked\nafter a\n")
    let again = try Self.run(project)
    // Nothing of it runs, its call neither; its dependent still reads its output value.
    #expect(again.log == "after a\n", "\(again.stdout)")
    #expect(again.stdout.contains("✓ release up to date"), "\(again.stdout)")
    #expect(again.stdout.contains("compile skipped (not called: 'release' is up to date)"), "\(again.stdout)")
    let plan = try project.run("-n", "release")
    #expect(plan.stdout.components(separatedBy: "up to date").count == 4, "\(plan.stdout)")
    let describe = try project.run("--describe", "release")
    #expect(describe.stdout.contains("  sources:    src/*.c\n              lib/*.h\n"), "\(describe.stdout)")
  }

  @Test func aCalledTaskInAnotherDirectoryKeysItsSourcesFromThere() throws {
    let project = try TaskFileProject(
      """
      tasks:
        gen: { dir: tools/gen, sources: ['*.in', '!skip.in'], run: echo gen >> ../../log }
        all:
          dir: app
          sources: [main.c]
          run:
            - task: gen
            - echo all >> ../log
      """)
    defer { project.remove() }
    for file in ["tools/gen/a.in", "tools/gen/skip.in", "app/main.c"] { try project.write(file, "1\n") }
    let describe = try project.run("--describe", "all")
    #expect(
      describe.stdout.contains("  sources: main.c\n           ../tools/gen/*.in\n           !../tools/gen/skip.in\n"),
      "\(describe.stdout)")
    #expect(try project.run("all").status == 0)
    #expect(try project.run("all").stdout.contains("✓ all up to date"))
    try project.write("tools/gen/skip.in", "2\n")
    #expect(try project.run("all").stdout.contains("✓ all up to date"))
    try project.write("tools/gen/a.in", "2\n")
    try project.write("log", "")
    #expect(try project.run("all").status == 0)
    #expect(project.read("log") == "gen\nall\n")
  }

  @Test func anEditAnywhereBelowACallRunsTheWholeTask() throws {
    let project = try Self.project()
    defer { project.remove() }
    _ = try Self.run(project)
    try project.write("src/a.c", "b\n")
    #expect(try project.run("-n", "release").stdout.contains("would run: src/a.c changed"))
    #expect(try Self.run(project).log == "prep\npacked\nafter b\n")
    // A source of the called task is in the caller's key (go-task would call it up to date).
    try project.write("lib/h.h", "h2\n")
    #expect(try project.run("-n", "release").stdout.contains("would run: lib/h.h changed"))
    #expect(try Self.run(project).log == "prep\ncompile\npacked\nafter b\n")
    // So is the called task's command.
    try project.write("tasks.yml", Self.tasks.replacingOccurrences(of: "echo compile", with: "echo compiled"))
    #expect(try Self.run(project).log == "prep\ncompiled\npacked\nafter b\n")
    #expect(try Self.run(project).log == "after b\n")
  }

  @Test func aMissingOutputIsRestoredWithTheWholeLog() throws {
    let project = try Self.project()
    defer { project.remove() }
    _ = try Self.run(project)
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("dist/app"))
    let restored = try Self.run(project)
    #expect(restored.log == "after a\n", "\(restored.stdout)")
    #expect(restored.stdout.contains("✓ release restored from cache"), "\(restored.stdout)")
    // The log of every part comes back with it.
    #expect(restored.stdout.contains("prep\n"), "\(restored.stdout)")
    #expect(restored.stdout.contains("packing\n"), "\(restored.stdout)")
    #expect(project.read("dist/app") == "a\n")
    // An earlier content comes back from the cache, as for any task.
    try project.write("src/a.c", "c\n")
    _ = try Self.run(project)
    try project.write("src/a.c", "a\n")
    let back = try Self.run(project)
    #expect(back.log == "after a\n", "\(back.stdout)")
    #expect(project.read("dist/app") == "a\n")
  }

  @Test func aPartThatFailsLeavesNoRecordThatCallsTheTaskUpToDate() throws {
    let project = try Self.project()
    defer { project.remove() }
    try project.write(
      "tasks.yml", Self.tasks.replacingOccurrences(of: "mkdir -p dist", with: "test ! -f fail && mkdir -p dist"))
    _ = try Self.run(project)
    try project.write("fail", "")
    let failed = try project.run("--force", "release")
    #expect(failed.status == 1, "\(failed.stdout)\(failed.stderr)")
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("fail"))
    // The first part ran again before the last failed: the whole comes back from the cache.
    let next = try Self.run(project)
    #expect(next.stdout.contains("✓ release restored from cache"), "\(next.stdout)")
  }

  /// The log of `release` run twice, then twice after an edit of its source: by go-task from
  /// the Taskfile below, and by runner from `tasks`.
  static let twiceAndTwiceAfterAnEdit = ["prep\ncompile\npacked\n", "", "prep\npacked\n", ""]

  static func runTwiceAndTwiceAfterAnEdit(_ project: TaskFileProject, _ run: () throws -> Void) throws -> [String] {
    var logs: [String] = []
    for edit in [false, true] {
      if edit { try project.write("src/a.c", "edited\n") }
      for _ in 1...2 {
        try run()
        logs.append(project.read("log") ?? "")
        try project.write("log", "")
      }
    }
    return logs
  }

  @Test func runsWhatGoTaskRuns() throws {
    let project = try Self.project()
    defer { project.remove() }
    let logs = try Self.runTwiceAndTwiceAfterAnEdit(project) { _ = try project.run("release") }
    #expect(logs == Self.twiceAndTwiceAfterAnEdit)
  }

  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed"))
  func goTaskSkipsTheSameWholeTask() throws {
    let project = try Self.project()
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      tasks:
        compile: { sources: [lib/*.h], cmds: [echo compile >> log] }
        release:
          sources: [src/*.c]
          generates: [dist/app]
          cmds:
            - echo prep >> log
            - task: compile
            - mkdir -p dist && cat src/*.c > dist/app && echo packed >> log
      """)
    let logs = try Self.runTwiceAndTwiceAfterAnEdit(project) {
      _ = try ImportOrderTests.run(ImportOrderTests.task!, ["release"], in: project.directory)
    }
    #expect(logs == Self.twiceAndTwiceAfterAnEdit)
  }
}
