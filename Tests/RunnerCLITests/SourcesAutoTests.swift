import Foundation
import Testing

/// `sources: auto` through the built binary: a task is keyed by the project files its
/// processes were seen to read (traced), with the paths they looked up in vain and the
/// directories they listed; a dependent by what it read of its dependencies' files.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "needs Linux"))
struct SourcesAutoTests {
  /// A scratch project whose files have modification times in the past, so no rewrite can
  /// hide within the file system's timestamp granularity.
  func project(_ tasks: String, files: [String: String]) throws -> TaskFileProject {
    let project = try TaskFileProject(tasks)
    for (name, text) in files { try write(project, name, text) }
    try write(project, "out/.keep", "")
    return project
  }

  func write(_ project: TaskFileProject, _ name: String, _ text: String) throws {
    try project.write(name, text)
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSinceNow: -60)],
      ofItemAtPath: project.directory.appendingPathComponent(name).path)
  }

  /// The tasks shown up to date by a run's output.
  func upToDate(_ output: BinaryRunner.Output) -> Set<String> {
    Set(
      output.stdout.split(separator: "\n").compactMap { line in
        line.hasSuffix(" up to date") && line.hasPrefix("✓ ") ? String(line.dropFirst(2).dropLast(11)) : nil
      })
  }

  @Test func aFileOnlyTheCommandKnowsItReadsIsAnInput() throws {
    let project = try project(
      """
      tasks:
        gen:
          run: cat src/a.txt $(cat src/list) > out/a.txt
          sources: auto
          outputs: [out/a.txt]

      """, files: ["src/a.txt": "a\n", "src/list": "inc/h.txt\n", "inc/h.txt": "hello\n", "inc/other.txt": "o\n"])
    defer { project.remove() }
    #expect(try project.run("gen").status == 0)
    #expect(upToDate(try project.run("gen")) == ["gen"])
    try write(project, "inc/other.txt", "changed\n")
    #expect(upToDate(try project.run("gen")) == ["gen"], "a file it never read")
    try write(project, "inc/h.txt", "bye\n")
    let plan = try project.run("-n", "gen")
    #expect(plan.stdout.contains("would run: inc/h.txt changed"), "\(plan.stdout)")
    #expect(upToDate(try project.run("gen")).isEmpty)
    #expect(project.read("out/a.txt") == "a\nbye\n")
  }

  /// `--describe` says the task is traced and lists what its last run read (the paths it
  /// looked up in vain are in its key, not in that list); before a run, that none was seen.
  @Test func describeListsWhatTheLastRunRead() throws {
    let project = try project(
      """
      tasks:
        gen:
          run: cat src/a.txt > out/a.txt; test -e src/absent.txt || true
          sources: auto
          outputs: [out/a.txt]

      """, files: ["src/a.txt": "a\n"])
    defer { project.remove() }
    func rows(_ text: String) -> [String] {
      text.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
    }
    #expect(rows(try project.run("--describe", "gen").stdout).contains("read: (not read yet)"))
    #expect(try project.run("gen").status == 0)
    let text = rows(try project.run("--describe", "gen").stdout)
    #expect(text.contains("sources: auto: what its last run was seen to read"), "\(text)")
    let read = text.drop { !$0.hasPrefix("read:") }
    #expect(read.contains { $0.hasSuffix("src/a.txt") }, "\(text)")
    #expect(!read.contains { $0.contains("absent.txt") }, "\(text)")
  }

  /// The early cut-off is exact: a dependent is keyed by what it read of its dependency's
  /// files, not by everything the dependency hands on.
  @Test func aDependentReadingOnlyPartOfItsDependencysOutputsStaysUpToDate() throws {
    let project = try project(
      """
      tasks:
        gen:
          run: cp src/a.txt out/a.txt && cp src/b.txt out/b.txt
          sources: auto
          outputs: [out/a.txt, out/b.txt]
        use:
          deps: [gen]
          run: cat out/a.txt > out/use.txt
          sources: auto
          outputs: [out/use.txt]

      """, files: ["src/a.txt": "a\n", "src/b.txt": "b\n"])
    defer { project.remove() }
    #expect(try project.run("use").status == 0)
    #expect(upToDate(try project.run("use")) == ["gen", "use"])
    try write(project, "src/b.txt", "b2\n")
    #expect(upToDate(try project.run("use")) == ["use"], "gen ran; use read nothing that changed")
    try write(project, "src/a.txt", "a2\n")
    #expect(upToDate(try project.run("use")).isEmpty)
    #expect(project.read("out/use.txt") == "a2\n")
  }

  /// A header made in an include directory searched before the one that held it, and a file
  /// added to a directory the task listed: each re-runs the task that looked.
  @Test func aPathLookedUpInVainAndAListedDirectoryAreInputs() throws {
    let project = try project(
      """
      tasks:
        find:
          run: |
            for d in first second; do if [ -e $d/h.txt ]; then cat $d/h.txt > out/found.txt; break; fi; done
          sources: auto
          outputs: [out/found.txt]
        list:
          run: ls src > out/list.txt
          sources: auto
          outputs: [out/list.txt]

      """, files: ["second/h.txt": "second\n", "src/a.txt": "a\n"])
    defer { project.remove() }
    #expect(try project.run("find", "list").status == 0)
    #expect(upToDate(try project.run("find", "list")) == ["find", "list"])
    try write(project, "first/h.txt", "first\n")
    #expect(upToDate(try project.run("find", "list")) == ["list"])
    #expect(project.read("out/found.txt") == "first\n")
    try write(project, "src/b.txt", "b\n")
    #expect(upToDate(try project.run("find", "list")) == ["find"])
    #expect(project.read("out/list.txt") == "a.txt\nb.txt\n")
  }

  /// A file the task reads and then rewrites (a counter, a lock file) is its input and its
  /// output: the run's own write leaves it up to date, someone else's re-runs it.
  @Test func aFileReadThenRewrittenIsAnInputTheTaskMayChange() throws {
    let project = try project(
      """
      tasks:
        count:
          run: n=$(cat count.txt); echo $((n + 1)) > count.txt
          sources: auto

      """, files: ["count.txt": "0\n"])
    defer { project.remove() }
    #expect(try project.run("count").status == 0)
    #expect(upToDate(try project.run("count")) == ["count"])
    #expect(project.read("count.txt") == "1\n")
    try write(project, "count.txt", "5\n")
    #expect(upToDate(try project.run("count")).isEmpty)
    #expect(project.read("count.txt") == "6\n")
  }

  /// A directory made where the task looked for a path in vain re-runs it.
  @Test func aDirectoryWhereAPathWasAbsentRerunsTheTask() throws {
    let project = try project(
      """
      tasks:
        vendor:
          run: if [ -d vendor ]; then echo yes > out/v.txt; else echo no > out/v.txt; fi
          sources: auto
          outputs: [out/v.txt]

      """, files: [:])
    defer { project.remove() }
    #expect(try project.run("vendor").status == 0)
    #expect(upToDate(try project.run("vendor")) == ["vendor"])
    try FileManager.default.createDirectory(
      at: project.directory.appendingPathComponent("vendor"), withIntermediateDirectories: true)
    #expect(upToDate(try project.run("vendor")).isEmpty)
    #expect(project.read("out/v.txt") == "yes\n")
  }

  /// An input someone else edits while the task runs: the output was made from the old text,
  /// so the next run runs the task again.
  @Test func anInputEditedDuringTheRunIsNotTrusted() throws {
    let project = try project(
      """
      tasks:
        gen:
          run: |
            cat inc/h.txt > out/a.txt
            while [ ! -e out/go ]; do sleep 0.02; done
          sources: auto
          outputs: [out/a.txt]

      """, files: ["inc/h.txt": "old\n"])
    defer { project.remove() }
    let runner = Process()
    runner.executableURL = BinaryRunner.executable
    runner.arguments = ["gen"]
    runner.currentDirectoryURL = project.directory
    runner.standardOutput = FileHandle.nullDevice
    runner.standardError = FileHandle.nullDevice
    try runner.run()
    let deadline = Date().addingTimeInterval(60)
    while project.read("out/a.txt") != "old\n", Date() < deadline { usleep(10_000) }
    try project.write("inc/h.txt", "new\n")
    try project.write("out/go", "")
    runner.waitUntilExit()
    #expect(runner.terminationStatus == 0)
    #expect(project.read("out/a.txt") == "old\n")
    #expect(upToDate(try project.run("gen")).isEmpty, "the run cannot vouch for what it read")
    #expect(project.read("out/a.txt") == "new\n")
    #expect(upToDate(try project.run("gen")) == ["gen"])
  }

  /// `sources: auto` for the file: every task that writes no sources of its own.
  @Test func theFileKeyTracesEveryTaskThatNamesNoSources() throws {
    let project = try project(
      """
      sources: auto
      tasks:
        gen:
          run: cat src/a.txt > out/a.txt
        always:
          run: echo ran
          sources: []

      """, files: ["src/a.txt": "a\n"])
    defer { project.remove() }
    #expect(try project.run("gen", "always").status == 0)
    #expect(upToDate(try project.run("gen", "always")) == ["gen"])
    let bad = try project.run(["-f", "other.yml"])
    #expect(bad.status == 2)
    try project.write("other.yml", "sources: [a]\ntasks:\n  x: echo\n")
    let refused = try project.run(["-f", "other.yml"])
    #expect(refused.stderr.contains("'sources' of the task file takes only auto"), "\(refused.stderr)")
  }

  /// A run killed mid-way (its timeout) leaves no record of what it read so far.
  @Test func aTaskKilledMidRunLeavesNoHalfRecord() throws {
    let project = try project(
      """
      tasks:
        slow:
          run: cat src/a.txt > out/a.txt && sleep 30
          sources: auto
          timeout: 300ms

      """, files: ["src/a.txt": "a\n"])
    defer { project.remove() }
    #expect(try project.run("slow").status == 1)
    let state = project.read(".runner/state") ?? ""
    #expect(!state.contains("\nI\t"), "nothing read is recorded: \(state)")
    #expect(try project.run("slow").status == 1, "and it runs again")
  }

  /// The no-op record vouches for a traced task: its files by their stamps, the paths it looked
  /// up in vain by their absence. A file made at one of them voids it.
  @Test func aNoOpOfATracedTaskIsReplayedUntilAnAbsentPathAppears() throws {
    let project = try project(
      """
      tasks:
        find:
          run: |
            for d in first second; do if [ -e $d/h.txt ]; then cat $d/h.txt > out/found.txt; break; fi; done
          sources: auto
          outputs: [out/found.txt]

      """, files: ["second/h.txt": "second\n"])
    defer { project.remove() }
    #expect(try project.run("find").status == 0)
    #expect(upToDate(try project.run("find")) == ["find"])
    let replay = try project.run("find")
    #expect(replay.stdout.contains("(nothing changed since the last run)"), "\(replay.stdout)")
    try write(project, "first/h.txt", "first\n")
    let after = try project.run("find")
    #expect(!after.stdout.contains("nothing changed") && upToDate(after).isEmpty, "\(after.stdout)")
    #expect(project.read("out/found.txt") == "first\n")
  }

  /// What the task removes is an input by its absence (a clean task runs again once the
  /// directory is back); a file it looks at, reads and then rewrites is an input too; and a
  /// task that lists `/` runs.
  @Test func removalsRewritesAndTheRootDirectory() throws {
    let project = try project(
      """
      tasks:
        clean:
          run: rm -rf build
          sources: auto
        bump:
          run: test -f VERSION && sed -i 's/1/2/' VERSION
          sources: auto
        root:
          run: ls / > /dev/null
          sources: auto
        made:
          run: mkdir -p gen && ls gen > made.txt
          sources: auto

      """, files: ["build/x.o": "x", "VERSION": "1\n"])
    defer { project.remove() }
    let first = try project.run("clean", "bump", "root", "made")
    #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
    #expect(upToDate(try project.run("clean", "bump", "root", "made")) == ["clean", "bump", "root", "made"])
    #expect(project.read("VERSION") == "2\n")
    try write(project, "build/y.o", "y")
    try write(project, "VERSION", "1\n")
    #expect(upToDate(try project.run("clean", "bump", "root")) == ["root"])
    #expect(!FileManager.default.fileExists(atPath: project.directory.appendingPathComponent("build").path))
    #expect(project.read("VERSION") == "2\n")
  }

  @Test func autoNeedsACommandOfItsOwn() throws {
    let project = try project(
      """
      tasks:
        all:
          sources: auto

      """, files: [:])
    defer { project.remove() }
    let output = try project.run("all")
    #expect(output.status == 2)
    #expect(output.stderr.contains("'sources: auto' of task 'all' needs 'run'"), "\(output.stderr)")
  }

  /// The C project: the header is in no `sources`, and an edit of it rebuilds.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/cc"), "needs /usr/bin/cc"))
  func aHeaderEditRebuildsACProgram() throws {
    let project = try project(
      """
      tasks:
        compile:
          run: cc -Iinclude -c src/main.c -o out/main.o
          sources: auto
          outputs: [out/main.o]
        build:
          deps: [compile]
          run: cc out/main.o -o out/app
          sources: auto
          outputs: [out/app]

      """,
      files: [
        "include/util.h": "#define GREETING \"hello\"\n",
        "src/main.c": "#include <stdio.h>\n#include \"util.h\"\nint main(void) { puts(GREETING); return 0; }\n",
      ])
    defer { project.remove() }
    #expect(try project.run("build").status == 0)
    #expect(upToDate(try project.run("build")) == ["compile", "build"])
    try write(project, "include/util.h", "#define GREETING \"bye\"\n")
    #expect(try project.run("build").status == 0)
    #expect(try TaskFileProject.shell("./out/app", in: project.directory) == "bye\n")
  }
}
