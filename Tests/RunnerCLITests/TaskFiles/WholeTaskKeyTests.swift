import Foundation
import Testing

/// What the key of a task with calls and `sources` covers, and what it leaves out; how its
/// parts end under `always:` and with calls first or last (`WholeTaskTests` has the basics).
@Suite struct WholeTaskKeyTests {
  @Test func eachTasksExclusionsApplyToItsOwnPatternsOnly() throws {
    let project = try TaskFileProject(
      """
      tasks:
        vendor: { sources: ['vendor/*.c'], run: echo vendor >> log }
        all:
          sources: ['**/*.c', '!vendor/**']
          run:
            - task: vendor
            - echo all >> log
      """)
    defer { project.remove() }
    try project.write("main.c", "1\n")
    try project.write("vendor/v.c", "1\n")
    #expect(try project.run("all").status == 0)
    try project.write("vendor/v.c", "2\n")
    try project.write("log", "")
    #expect(try project.run("all").status == 0)
    // The caller's `!vendor/**` does not hide the called task's vendor/v.c.
    #expect(project.read("log") == "vendor\nall\n")
  }

  @Test func aFileACalledTaskWritesIsNotASourceOfTheCaller() throws {
    let project = try TaskFileProject(
      """
      tasks:
        gen: { sources: [gen.in], outputs: [src/gen.c], run: 'date +%N > src/gen.c' }
        build:
          sources: ['src/*.c']
          outputs: [app]
          run:
            - task: gen
            - cat src/*.c > app
      """)
    defer { project.remove() }
    try project.write("gen.in", "1\n")
    try project.write("src/main.c", "1\n")
    #expect(try project.run("build").status == 0)
    // gen.c changed in the run, but is gen's to answer for: the caller stays up to date.
    let again = try project.run("build")
    #expect(again.stdout.contains("✓ build up to date"), "\(again.stdout)")
    try project.write("gen.in", "2\n")
    #expect(try project.run("-n", "build").stdout.contains("would run: gen.in changed"))
  }

  @Test func aCalledTasksKeyedVariableIsInTheCallersKey() throws {
    let project = try TaskFileProject(
      """
      tasks:
        compile: { key_env: [CC], run: 'echo "$CC" >> log' }
        all:
          sources: [main.c]
          run:
            - task: compile
      """)
    defer { project.remove() }
    try project.write("main.c", "1\n")
    #expect(try project.run("all", environment: ["CC": "gcc"]).status == 0)
    #expect(try project.run("all", environment: ["CC": "gcc"]).stdout.contains("✓ all up to date"))
    #expect(try project.run("all", environment: ["CC": "clang"]).status == 0)
    #expect(project.read("log") == "gcc\nclang\n")
  }

  @Test func aCleanupPartAfterAFailedCallRecordsNothing() throws {
    let project = try TaskFileProject(
      """
      tasks:
        check: { run: test ! -f broken }
        all:
          always: true
          sources: [main.c]
          run:
            - echo first >> log
            - task: check
            - echo last >> log
      """)
    defer { project.remove() }
    try project.write("main.c", "1\n")
    try project.write("broken", "")
    let failed = try project.run("all")
    #expect(failed.status == 1)
    // The list went on after the failed call, as a cleanup's does...
    #expect(project.read("log") == "first\nlast\n")
    // ... but the whole did not succeed: the next run runs it again, and the call fails again.
    #expect(try project.run("all").status == 1)
    #expect(project.read("log") == "first\nlast\nfirst\nlast\n")
  }

  @Test func aListThatStartsAndEndsWithACallIsDecidedAsOne() throws {
    let project = try TaskFileProject(
      """
      tasks:
        a: { run: echo a >> log }
        b: { run: echo b >> log }
        all:
          sources: [main.c]
          outputs: [out]
          run:
            - task: a
            - echo mid > out
            - task: b
      """)
    defer { project.remove() }
    try project.write("main.c", "1\n")
    #expect(try project.run("all").status == 0)
    #expect(project.read("log") == "a\nb\n")
    let again = try project.run("all")
    #expect(again.stdout.contains("✓ all up to date"), "\(again.stdout)")
    #expect(project.read("log") == "a\nb\n")
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("out"))
    #expect(try project.run("all").stdout.contains("✓ all restored from cache"))
    #expect(project.read("out") == "mid\n")
  }
}
