import Foundation
import Testing

/// The no-op record at the end of `.runner/state`: a run in which nothing ran is remembered, and the same run again concludes
/// the same from `stat`s alone; never when anything it rests on changed.
///
/// A file written before a run starts is trusted by its stamp at once, and an output from the
/// next run on (`Disk`), so the second run of a settled project records stamps as a
/// user's would. Every file a test writes gets its own modification time in the past, so no
/// rewrite can hide within the file system's timestamp granularity.
@Suite struct NoOpRecordTests {
  static let remark = "(nothing changed since the last run)"

  static let tasks = """
    default: [all]
    tasks:
      gen:
        run: cat src/*.txt > out/gen.txt
        sources: ["src/*.txt"]
        outputs: [out/gen.txt]
      use:
        deps: [gen]
        run: cat out/gen.txt lib/*/*.txt > out/use.txt
        sources: [out/gen.txt, "lib/**"]
        outputs: [out/use.txt]
      all:
        deps: [use]

    """

  struct Project {
    let directory: URL

    func run(_ arguments: [String] = [], environment: [String: String] = [:]) throws -> BinaryRunner.Output {
      try BinaryRunner.run(
        arguments, in: directory, environment: environment)
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

    /// A record that could apply: the state file's last segment is one (its last line before
    /// the checksum is the key's) that vouches for every task (no `S` line before the key).
    var hasRecord: Bool {
      guard let state = read(".runner/state") else { return false }
      let lines = state.split(separator: "\n")
      return lines.count >= 3 && lines[lines.count - 2].hasPrefix("N\t") && !lines[lines.count - 3].hasPrefix("S\t")
    }

    /// The tasks the last segment, a record, does not vouch for (nil: it is no record).
    var unvouched: [String]? {
      guard let state = read(".runner/state") else { return nil }
      let lines = state.split(separator: "\n")
      guard lines.count >= 2, lines[lines.count - 2].hasPrefix("N\t") else { return nil }
      return lines.dropLast(2).reversed().prefix { $0.hasPrefix("S\t") }.map { String($0.dropFirst(2)) }.reversed()
    }
  }

  /// A project whose last run found everything up to date and wrote its record.
  func settledProject() throws -> Project {
    try settled().project
  }

  /// The same, with what that last run (a full one) printed.
  func settled() throws -> (project: Project, output: BinaryRunner.Output) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-noop-\(UUID().uuidString)")
    let project = Project(directory: directory)
    try project.write("tasks.yml", Self.tasks)
    try project.write("src/a.txt", "a\n")
    try project.write("src/b.txt", "b\n")
    try project.write("lib/x/one.txt", "one\n")
    try FileManager.default.createDirectory(
      at: directory.appendingPathComponent("out"), withIntermediateDirectories: true)
    let first = try project.run()
    #expect(first.status == 0)
    #expect(project.unvouched != nil, "every task succeeded: a record, of the tasks whose stamps are trusted")
    let second = try project.run()
    #expect(second.stdout.contains("✓ use up to date"))
    #expect(project.hasRecord)
    return (project, second)
  }

  @Test func theSameRunAgainIsConcludedFromTheRecordWithTheSameLines() throws {
    let (project, full) = try settled()
    let recorded = try project.run()
    #expect(full.status == 0 && recorded.status == 0)
    #expect(recorded.stdout.contains(Self.remark))
    // Everything but times is what the full path printed.
    func body(_ text: String) -> [Substring] { text.split(separator: "\n").dropLast() }
    func withoutTimes(_ lines: [Substring]) -> [Substring] { lines.map { $0.hasPrefix("✓ all ") ? "✓ all" : $0 } }
    #expect(withoutTimes(body(recorded.stdout)) == withoutTimes(body(full.stdout)))
    #expect(body(recorded.stdout).contains("✓ gen up to date"))
    #expect(body(recorded.stdout).last?.hasPrefix("✓ all ") == true)
    #expect(recorded.stdout.contains("3 task(s): 3 succeeded in "))
  }

  @Test func aChangedSourceTakesTheFullPathAndRerunsWhatDependsOnIt() throws {
    let project = try settledProject()
    try project.write("src/a.txt", "A\n")
    let changed = try project.run()
    #expect(changed.status == 0)
    #expect(!changed.stdout.contains(Self.remark))
    #expect(!changed.stdout.contains("✓ gen up to date"))
    #expect(!changed.stdout.contains("✓ use up to date"))
    #expect(project.read("out/use.txt") == "A\nb\none\n")
    #expect(project.unvouched != nil, "a record of this run replaced the old one")
  }

  /// A record that vouches for some tasks: never replayed, and the tasks it vouches for are up
  /// to date only while their files and their dependencies are as recorded.
  @Test func aRecordOfSomeTasksIsNeverReplayedAndRerunsWhatChanged() throws {
    let project = try settledProject()
    try project.write("tasks.yml", Self.tasks + "  echo:\n    deps: [all]\n    run: echo hi\n")
    #expect(try project.run(["echo"]).status == 0)
    #expect(project.unvouched == ["echo"], "a task without sources runs every time")
    let again = try project.run(["echo"])
    #expect(!again.stdout.contains(Self.remark))
    #expect(again.stdout.contains("✓ gen up to date") && again.stdout.contains("✓ use up to date"))
    #expect(again.stdout.contains("echo | hi"))
    // A file of a task it vouches for, and what depends on it, run again.
    try project.write("src/b.txt", "B\n")
    let edited = try project.run(["echo"])
    #expect(!edited.stdout.contains("✓ gen up to date") && !edited.stdout.contains("✓ use up to date"))
    #expect(project.read("out/use.txt") == "a\nB\none\n")
    // A file only a dependency reads: the dependent runs because the dependency's output,
    // one of its sources, changed.
    #expect(try project.run(["echo"]).stdout.contains("✓ use up to date"))
    try project.write("src/a.txt", "A\n")
    let upstream = try project.run(["echo"])
    #expect(!upstream.stdout.contains("✓ use up to date"), "\(upstream.stdout)")
    #expect(project.read("out/use.txt") == "A\nB\none\n")
  }

  /// The record pins the task file: a task whose command changed runs, though the record
  /// vouches for it and its files are as recorded.
  @Test func aRecordOfAnotherTaskFileVouchesForNothing() throws {
    let project = try settledProject()
    try project.write("tasks.yml", Self.tasks + "  echo:\n    deps: [all]\n    run: echo hi\n")
    _ = try project.run(["echo"])
    #expect(try project.run(["echo"]).stdout.contains("✓ use up to date"))
    #expect(project.unvouched == ["echo"])
    let changed = Self.tasks.replacingOccurrences(
      of: "lib/*/*.txt > out/use.txt", with: "lib/*/*.txt src/a.txt > out/use.txt")
    try project.write("tasks.yml", changed + "  echo:\n    deps: [all]\n    run: echo hi\n")
    let output = try project.run(["echo"])
    #expect(output.stdout.contains("✓ gen up to date"))
    #expect(!output.stdout.contains("✓ use up to date"), "\(output.stdout)")
    #expect(project.read("out/use.txt") == "a\nb\none\na\n")
  }

  @Test func aNewFileUnderADoubleStarPatternIsNoticed() throws {
    let project = try settledProject()
    try project.write("lib/y/two.txt", "two\n")
    let changed = try project.run()
    #expect(!changed.stdout.contains(Self.remark))
    #expect(changed.stdout.contains("✓ gen up to date"))
    #expect(!changed.stdout.contains("✓ use up to date"))
    #expect(project.read("out/use.txt") == "a\nb\none\ntwo\n")
  }

  @Test func aDeletedOutputIsBroughtBack() throws {
    let project = try settledProject()
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("out/use.txt"))
    let changed = try project.run()
    #expect(changed.status == 0)
    #expect(!changed.stdout.contains(Self.remark))
    #expect(project.read("out/use.txt") == "a\nb\none\n")
  }

  /// A comment, blank lines or another layout leave the tasks as they were: the record still
  /// applies (and notes the new bytes). A change of content, even one that parses to the same
  /// tasks as the old (a quoted number), takes the full path.
  @Test func aTaskFileEditedWithoutChangingItsContentKeepsTheRecord() throws {
    let project = try settledProject()
    let (_, full) = try settled()
    try project.write(
      "tasks.yml", "# a comment\n\n" + Self.tasks.replacingOccurrences(of: "deps: [gen]", with: "deps:\n      - gen"))
    let edited = try project.run()
    #expect(edited.stdout.contains(Self.remark))
    #expect(edited.stdout.components(separatedBy: "\n").count == full.stdout.components(separatedBy: "\n").count)
    #expect(try project.run().stdout.contains(Self.remark))
    try project.write("tasks.yml", Self.tasks.replacingOccurrences(of: "cat out/gen.txt", with: "cat  out/gen.txt"))
    let changed = try project.run()
    #expect(!changed.stdout.contains(Self.remark))
    #expect(changed.stdout.contains("✓ gen up to date"))
    #expect(!changed.stdout.contains("✓ use up to date"), "its command changed")
  }

  /// libyaml reads UTF-16 as the same events; the loader refuses it. The record must not
  /// replay over a file the full path refuses.
  @Test func aTaskFileSavedAgainAsUTF16IsRefusedNotReplayed() throws {
    let project = try settledProject()
    let utf16: [UInt8] = [0xFF, 0xFE] + Self.tasks.utf8.flatMap { byte -> [UInt8] in [byte, 0] }
    try Data(utf16).write(to: project.directory.appendingPathComponent("tasks.yml"))
    let run = try project.run()
    #expect(run.status == 2)
    #expect(!run.stdout.contains(Self.remark))
  }

  @Test func anotherEnvironmentTaskFileOrCommandLineTakesTheFullPath() throws {
    let project = try settledProject()
    let environment = try project.run(environment: ["NOOP_TEST_VALUE": "1"])
    #expect(!environment.stdout.contains(Self.remark), "the record's key holds the whole environment")
    #expect(environment.stdout.contains("✓ gen up to date"), "an inherited variable is not part of a task's key")
    _ = try project.run()  // back to the first environment: the full path again, which records it
    #expect(try project.run().stdout.contains(Self.remark))
    let target = try project.run(["use"])
    #expect(!target.stdout.contains(Self.remark))
    #expect(target.stdout.contains("2 task(s): 2 succeeded"))
    try project.write("tasks.yml", Self.tasks + "  extra: 'true'\n")
    let edited = try project.run()
    #expect(!edited.stdout.contains(Self.remark))
    #expect(edited.stdout.contains("✓ use up to date"))
  }

  @Test func aRunThatChangedTheStateVoidsTheRecord() throws {
    let project = try settledProject()
    let forced = try project.run(["--force", "gen"])
    #expect(forced.status == 0)
    #expect(!forced.stdout.contains(Self.remark))
    let next = try project.run()
    #expect(!next.stdout.contains(Self.remark))
    #expect(next.status == 0)
  }

  /// A run that changed a record and no file voids the record: its task's key moved with a
  /// param, not with a file, so only the record's place in the log can tell.
  @Test func aRunThatChangedOnlyARecordVoidsTheRecord() throws {
    let project = try settledProject()
    try project.write(
      "tasks.yml",
      "params:\n  mode: a\ntasks:\n  check:\n    run: 'true'\n    sources: [src/a.txt]\n    env: { MODE: '${{ params.mode }}' }\n"
    )
    #expect(try project.run(["check"]).stdout.contains("✓ check "))
    #expect(try project.run(["check"]).stdout.contains("✓ check up to date"))
    #expect(try project.run(["check"]).stdout.contains(Self.remark))
    let other = try project.run(["check", "mode=b"])
    #expect(!other.stdout.contains("up to date"), "\(other.stdout)")
    let back = try project.run(["check"])
    #expect(!back.stdout.contains(Self.remark))
    #expect(!back.stdout.contains("✓ check up to date"), "its key changed back: it runs")
  }

  /// A param whose default is what a command prints can change between runs with no file
  /// changing: such a file never leaves a record.
  @Test func aParamFromACommandLeavesNoRecord() throws {
    let project = try settledProject()
    try project.write(
      "tasks.yml",
      "params:\n  rev: { default: { sh: 'cat rev.txt' } }\ntasks:\n  check:\n    run: 'true'\n"
        + "    sources: [src/a.txt]\n    env: { REV: '${{ params.rev }}' }\n")
    try project.write("rev.txt", "1\n")
    _ = try project.run(["check"])
    #expect(try project.run(["check"]).stdout.contains("✓ check up to date"))
    #expect(!project.hasRecord)
    try project.write("rev.txt", "2\n")
    let changed = try project.run(["check"])
    #expect(!changed.stdout.contains("up to date"), "\(changed.stdout)")
  }

  /// A task's `if:` command that edits its source: what the read-ahead checked before the
  /// command ran no longer holds, and the task runs. (Every process a run starts stops the
  /// read-ahead first.)
  @Test func aConditionThatEditsASourceIsSeen() throws {
    let project = try settledProject()
    var text = "tasks:\n"
    for index in 0..<8 {
      text += "  t\(index):\n    run: cp src/a.txt out/t\(index).txt\n    sources: [src/a.txt]\n"
      text += "    outputs: [out/t\(index).txt]\n" + (index > 0 ? "    deps: [t\(index - 1)]\n" : "")
    }
    text += "  last:\n    deps: [t7]\n    if: echo edited >> src/b.txt\n    run: cat src/b.txt > out/last.txt\n"
    text += "    sources: [src/b.txt]\n    outputs: [out/last.txt]\n"
    try project.write("tasks.yml", text)
    _ = try project.run(["last"])
    try project.write("src/b.txt", "b\n")
    _ = try project.run(["last"])
    for _ in 0..<3 {
      let output = try project.run(["last"])
      #expect(!output.stdout.contains("✓ last up to date"), "\(output.stdout)")
      #expect(project.read("out/last.txt") == project.read("src/b.txt"))
    }
  }

  /// Damage in the record (the last segment) costs the record only: the records before it
  /// stand, with a warning; the run after records again.
  @Test func aDamagedRecordIsIgnoredAndReplaced() throws {
    let project = try settledProject()
    let path = project.directory.appendingPathComponent(".runner/state")
    var bytes = try Data(contentsOf: path)
    bytes[bytes.count - 10] ^= 1  // the trailer no longer matches
    try bytes.write(to: path)
    let damaged = try project.run()
    #expect(damaged.status == 0)
    #expect(!damaged.stdout.contains(Self.remark))
    #expect(damaged.stdout.contains("✓ use up to date"))
    #expect(damaged.stderr.contains("damaged"), "\(damaged.stderr)")
    #expect(!project.hasRecord, "a replay prints no warning: a run that had one leaves no record")
    #expect(!(try project.run().stdout.contains(Self.remark)))
    #expect(project.hasRecord)
    #expect(try project.run().stdout.contains(Self.remark))
  }

  /// The file where runners before state format 6 kept the record is removed, even a FIFO.
  @Test func theRecordFileOfEarlierRunnersIsRemoved() throws {
    let project = try settledProject()
    let old = project.directory.appendingPathComponent(".runner/noop").path
    #expect(mkfifo(old, 0o644) == 0)
    try project.write("src/a.txt", "A\n")
    #expect(try project.run().status == 0)
    #expect(try project.run().status == 0, "up to date: a record is written")
    #expect(!FileManager.default.fileExists(atPath: old))
    #expect(try project.run().stdout.contains(Self.remark))
  }

  /// The events a file holds, each task's in order, without the times (and a group's time).
  static func eventsByTask(_ text: String) throws -> [String: [String]] {
    var byTask: [String: [String]] = [:]
    for line in text.split(separator: "\n") {
      var event = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      event["time"] = nil
      event["duration"] = nil
      if event["task"] as? String == "all", event["state"] as? String == "succeeded" { event["reason"] = nil }
      let task = event["task"] as? String ?? ""
      let fields = event.keys.sorted().map { "\($0)=\(event[$0]!)" }.joined(separator: " ")
      byTask[task, default: []].append(fields)
    }
    return byTask
  }

  /// A run concluded from the record reports through the reporters of a full run: its events
  /// file says of each task what the full run's said.
  @Test func anEventsFileIsWrittenByAReplayAsByAFullRun() throws {
    let project = try settledProject()
    let events = project.directory.appendingPathComponent("events.jsonl").path
    // The first run with these arguments takes the full path (the record is of another command line).
    let full = try project.run(["-j3", "--events", events])
    #expect(full.status == 0 && !full.stdout.contains(Self.remark))
    let fullEvents = try #require(project.read("events.jsonl"))
    let replay = try project.run(["-j3", "--events", events])
    #expect(replay.status == 0 && replay.stdout.contains(Self.remark))
    let replayEvents = try #require(project.read("events.jsonl"))
    #expect(try Self.eventsByTask(replayEvents) == Self.eventsByTask(fullEvents))
    #expect(replayEvents.contains("\"concurrency\":3"))
    #expect(replayEvents.split(separator: "\n").last?.contains("\"run_finished\"") == true)
  }

  /// The same for GitHub's log: the replay prints what the full run printed.
  @Test func aGitHubLogIsPrintedByAReplayAsByAFullRun() throws {
    let project = try settledProject()
    let full = try project.run(["--ci", "github"])
    let replay = try project.run(["--ci", "github"])
    #expect(full.status == 0 && replay.status == 0)
    #expect(!full.stdout.contains(Self.remark) && replay.stdout.contains(Self.remark))
    func body(_ text: String) -> [Substring] {
      text.split(separator: "\n").dropLast().map { $0.hasPrefix("✓ all ") ? "✓ all" : $0 }
    }
    #expect(body(replay.stdout) == body(full.stdout))
    #expect(replay.stdout.contains("::group::"))
  }

  @Test func reportFilesAlwaysTakeTheFullPath() throws {
    let project = try settledProject()
    let junit = project.directory.appendingPathComponent("junit.xml").path
    _ = try project.run(["--junit", junit])
    let output = try project.run(["--junit", junit])
    #expect(output.status == 0 && !output.stdout.contains(Self.remark))
    #expect(project.read("junit.xml")?.contains("<testcase") == true)
    #expect(!project.hasRecord)
  }

  @Test func tasksThatAlwaysRunLeaveNoCompleteRecord() throws {
    let project = try settledProject()
    try project.write("tasks.yml", Self.tasks + "  echo:\n    deps: [all]\n    run: echo hi\n")
    _ = try project.run(["echo"])
    let again = try project.run(["echo"])
    #expect(again.stdout.contains("echo | hi"))
    #expect(!again.stdout.contains(Self.remark))
    #expect(!project.hasRecord)
  }
}
