import Foundation
import Testing

/// `depfile:` through the built binary: the files a task's depfile names are its inputs from
/// the run that wrote it on, as ninja reads `cc -MMD`'s output.
///
/// Every file a test writes gets a modification time in the past, so no rewrite can hide within
/// the file system's timestamp granularity.
@Suite struct DepfileRunTests {
  /// A task that reads a header its `sources` do not name, and says so in its depfile.
  static let tasks = """
    tasks:
      gen:
        run: |
          cat src/a.txt inc/h.txt > out/a.txt
          printf 'out/a.txt: src/a.txt \\\\\\n inc/h.txt\\n\\ninc/h.txt:\\n' > out/a.d
        sources: [src/a.txt]
        outputs: [out/a.txt]
        depfile: out/a.d
      use:
        deps: [gen]
        run: cp out/a.txt out/use.txt
        sources: [out/a.txt]
        outputs: [out/use.txt]

    """

  struct Project {
    let directory: URL

    init(_ tasks: String) throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-depfile-\(UUID().uuidString)")
      try FileManager.default.createDirectory(
        at: directory.appendingPathComponent("out"), withIntermediateDirectories: true)
      try write("tasks.yml", tasks)
    }

    func run(_ arguments: [String] = []) throws -> BinaryRunner.Output {
      try BinaryRunner.run(arguments, in: directory)
    }

    func write(_ name: String, _ text: String) throws {
      let url = directory.appendingPathComponent(name)
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try text.write(to: url, atomically: false, encoding: .utf8)
      try FileManager.default.setAttributes(
        [.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: url.path)
    }

    func read(_ name: String) -> String? {
      try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }
  }

  /// A project whose tasks ran once and were then found up to date.
  func settled() throws -> Project {
    let project = try Project(Self.tasks)
    try project.write("src/a.txt", "a\n")
    try project.write("inc/h.txt", "hello\n")
    let first = try project.run(["use"])
    #expect(first.status == 0, "\(first.stderr)")
    let second = try project.run(["use"])
    #expect(second.stdout.contains("✓ gen up to date") && second.stdout.contains("✓ use up to date"))
    return project
  }

  @Test func anEditOfAFileOnlyTheDepfileNamesRerunsTheTask() throws {
    let project = try settled()
    try project.write("inc/h.txt", "bye\n")
    let plan = try project.run(["-n", "use"])
    #expect(plan.stdout.contains("would run: inc/h.txt changed"), "\(plan.stdout)")
    let run = try project.run(["use"])
    #expect(run.status == 0)
    #expect(!run.stdout.contains("✓ gen up to date"))
    #expect(project.read("out/use.txt") == "a\nbye\n")
    #expect(try project.run(["--explain", "gen"]).stdout.contains("because inc/h.txt changed"))
  }

  /// The record of a run in which nothing ran rests on the files the depfile named too.
  @Test func anEditAfterANoOpRunIsNotReplayedAway() throws {
    let project = try settled()
    let again = try project.run(["use"])
    #expect(again.stdout.contains("(nothing changed since the last run)"), "\(again.stdout)")
    try project.write("inc/h.txt", "ciao\n")
    let run = try project.run(["use"])
    #expect(!run.stdout.contains("nothing changed") && !run.stdout.contains("✓ gen up to date"))
    #expect(project.read("out/use.txt") == "a\nciao\n")
  }

  @Test func aDeletedFileItNamedRerunsTheTask() throws {
    let project = try settled()
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("inc/h.txt"))
    let run = try project.run(["gen"])
    #expect(run.status == 1, "cat fails: the header is gone")
    #expect(run.stdout.contains("inc/h.txt"))
  }

  /// With its state gone (a fresh checkout has none), the task is found in the local cache by
  /// the files its last run's depfile named, hashed now: the same files restore it, an edited
  /// one runs it.
  @Test func withoutItsStateATaskIsFoundByTheFilesItRead() throws {
    let project = try settled()
    let state = project.directory.appendingPathComponent(".runner/state")
    try FileManager.default.removeItem(at: state)
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("out/a.txt"))
    let restored = try project.run(["gen"])
    #expect(restored.stdout.contains("✓ gen restored from cache"), "\(restored.stdout)")
    #expect(project.read("out/a.txt") == "a\nhello\n")
    try FileManager.default.removeItem(at: state)
    try project.write("inc/h.txt", "bye\n")
    let ran = try project.run(["gen"])
    #expect(!ran.stdout.contains("restored") && !ran.stdout.contains("up to date"), "\(ran.stdout)")
    #expect(project.read("out/a.txt") == "a\nbye\n")
  }

  @Test func describeListsWhatThePatternsMatchAndWhatTheDepfileNamed() throws {
    let project = try settled()
    // Each row's words, whatever the width of the labels.
    func rows(_ text: String) -> [String] {
      text.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
    }
    let text = rows(try project.run(["--describe", "gen"]).stdout)
    #expect(text.contains("matches: src/a.txt"), "\(text)")
    #expect(text.contains("depfile: out/a.d"))
    let read = try #require(text.firstIndex(of: "read: src/a.txt"))
    #expect(text[read + 1] == "inc/h.txt")
    let fresh = try Project(Self.tasks)
    #expect(rows(try fresh.run(["--describe", "gen"]).stdout).contains("read: (not read yet)"))
  }

  @Test func aCommandThatLeavesNoDepfileFails() throws {
    let project = try Project(
      """
      tasks:
        gen:
          run: echo a > out/a.txt
          outputs: [out/a.txt]
          depfile: out/a.d

      """)
    let run = try project.run(["gen"])
    #expect(run.status == 1)
    #expect(run.stdout.contains("its depfile 'out/a.d' cannot be read"), "\(run.stdout)")
    // Nothing recorded: the next run runs it again.
    #expect(try project.run(["gen"]).stdout.contains("its depfile 'out/a.d' cannot be read"))
  }

  /// A header the task generates before it compiles is in its depfile: the task settles.
  @Test func aHeaderTheTaskGeneratesSettles() throws {
    let project = try Project(
      """
      tasks:
        gen:
          run: |
            echo '#define X 1' > out/gen.h
            cat out/gen.h > out/a.txt
            echo 'out/a.txt: out/gen.h' > out/a.d
          outputs: [out/a.txt]
          depfile: out/a.d

      """)
    #expect(try project.run(["gen"]).status == 0)
    #expect(try project.run(["gen"]).stdout.contains("✓ gen up to date"))
  }

  @Test func aDepfileThatIsNoRuleFailsAtItsLine() throws {
    let project = try Project(
      """
      tasks:
        gen:
          run: |
            printf 'out/a.d: x\\nno colon here\\n' > out/a.d
          depfile: out/a.d

      """)
    let run = try project.run(["gen"])
    #expect(run.status == 1)
    #expect(run.stdout.contains("line 2: expected 'target: prerequisites'"), "\(run.stdout)")
  }

  /// `depfile` alone makes a task skippable: its key is its command and the files named.
  @Test func aTaskWithOnlyADepfileIsSkippedWhileItsFilesHold() throws {
    let project = try Project(
      """
      tasks:
        gen:
          run: |
            cat inc/h.txt > out/a.txt && echo 'out/a.txt: inc/h.txt' > out/a.d
          depfile: out/a.d

      """)
    try project.write("inc/h.txt", "one\n")
    #expect(try project.run(["gen"]).status == 0)
    #expect(try project.run(["gen"]).stdout.contains("✓ gen up to date"))
    try project.write("inc/h.txt", "two\n")
    #expect(!(try project.run(["gen"]).stdout.contains("up to date")))
    #expect(project.read("out/a.txt") == "two\n")
  }

  @Test func aDepfileNeedsACommandOfItsOwn() throws {
    let project = try Project(
      """
      tasks:
        all:
          deps: [gen]
          depfile: out/a.d
        gen:
          run: "true"

      """)
    let run = try project.run(["all"])
    #expect(run.status == 2)
    #expect(run.stderr.contains("tasks.yml:4:14"), "\(run.stderr)")
    #expect(run.stderr.contains("'depfile' of task 'all' needs 'run'"))
  }

  /// The case of the issue: a C program whose header only the compiler's depfile names.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/cc"), "needs /usr/bin/cc"))
  func aHeaderEditRebuildsACProgram() throws {
    let project = try Project(
      """
      tasks:
        compile:
          run: cc -Iinclude -MMD -MF out/main.d -c src/main.c -o out/main.o
          sources: ["src/*.c"]
          outputs: [out/main.o]
          depfile: out/main.d
        build:
          deps: [compile]
          run: cc out/main.o -o out/app
          sources: [out/main.o]
          outputs: [out/app]

      """)
    try project.write("include/util.h", "#define GREETING \"hello\"\n")
    try project.write(
      "src/main.c", "#include <stdio.h>\n#include \"util.h\"\nint main(void) { puts(GREETING); return 0; }\n")
    #expect(try project.run(["build"]).status == 0)
    try project.write("include/util.h", "#define GREETING \"bye\"\n")
    #expect(try project.run(["-n", "build"]).stdout.contains("would run: include/util.h changed"))
    #expect(try project.run(["build"]).status == 0)
    #expect(try TaskFileProject.shell("./out/app", in: project.directory) == "bye\n")
  }
}
