import Foundation
import Testing

@testable import RunnerCache
@testable import RunnerModel

/// The recorded files compared with the file system before the task file is parsed, and the
/// fingerprints worked out ahead of the scheduler: observations the run may only use while
/// nothing of the run has changed a file.
@Suite struct RecordChecksTests {
  let harness: RunHarness

  init() throws {
    harness = try RunHarness("tasks:\n  t: echo\n")
    try harness.write("src/a.c", "a\n")
    try harness.write("out/a.o", "o\n")
  }

  var base: String { harness.directory.path }

  /// A record of `src/*.c` → `out/a.o` as the files are now.
  func record() throws -> TaskRecord {
    var recorder: SourceWalk.Recorder? = SourceWalk.Recorder(judge: .init(wall: .max / 2), files: LocalFileSystem())
    let key = SourceWalk.key(patterns: ["src/*.c"], directory: base)
    _ = SourceGlob.expand(["src/*.c"], in: base, recording: &recorder)
    func file(_ path: String) -> FileRecord {
      FileRecord(path: path, hash: "h", stamp: CacheFileSystem.status(base + "/" + path)?.stamp)
    }
    return TaskRecord(
      fingerprint: "f", operation: "o", directory: ".", environment: "e", dependencies: "d",
      sources: [file("src/a.c")], outputs: [file("out/a.o")], values: [], outputDigest: "od",
      walk: try #require(recorder?.finish(key: key)))
  }

  @Test func aRecordWhoseFilesAreUnchangedHolds() throws {
    let verdict = RecordChecks.verdict(of: try record(), base: base)
    #expect(verdict == .init(fingerprint: "f", directory: base, walkHolds: true, sourcesHold: true, outputsHold: true))
  }

  @Test func aChangedSourceAnAddedFileAndAMissingOutputEachFail() throws {
    let record = try record()
    try harness.write("src/a.c", "changed\n")
    var verdict = RecordChecks.verdict(of: record, base: base)
    #expect(verdict.walkHolds && !verdict.sourcesHold && verdict.outputsHold)
    try harness.write("src/b.c", "b\n")
    verdict = RecordChecks.verdict(of: record, base: base)
    #expect(!verdict.walkHolds && !verdict.sourcesHold)
    harness.remove("out/a.o")
    #expect(!RecordChecks.verdict(of: record, base: base).outputsHold)
  }

  @Test func aFileWithoutATrustedStampNeverHolds() throws {
    var record = try record()
    record.sources[0].stamp = nil
    #expect(!RecordChecks.verdict(of: record, base: base).sourcesHold)
  }

  @Test func aVerdictIsHandedOutOnceItIsMadeAndARecordTakenFirstIsLeftToTheTaker() throws {
    var state = BuildState()
    state.tasks["early"] = try record()
    state.tasks["late"] = try record()
    let checks = RecordChecks(state, base: base)
    #expect(checks.take("early") == nil, "not checked yet: the caller checks it itself")
    checks.run()
    #expect(checks.take("early") == nil, "claimed before the run: skipped by it")
    #expect(checks.take("late")?.sourcesHold == true)
    #expect(checks.take("unknown") == nil)
  }

  @Test func anExpectationHoldsOnlyForTheAssumedContributions() {
    let assumed = [
      Fingerprint.Dependency(name: "b", fingerprint: "fb", outputDigest: "ob"),
      Fingerprint.Dependency(name: "a", fingerprint: "fa", outputDigest: "oa"),
    ]
    let task = TaskDefinition(name: "t", location: SourceLocation(file: "f", line: 1, column: 1), index: 0)
    let check = SourceCheck(task: task, workingDirectory: base, previous: nil, disk: Disk(mark: nil))
    let expectation = FingerprintExpectation(
      fingerprint: Fingerprint(
        task: task, workingDirectory: base, environment: [("E", "e")], dependencies: assumed, previous: nil,
        checked: check, disk: Disk(mark: nil)),
      dependencies: assumed.sorted { $0.name < $1.name })
    #expect(expectation.holds(for: assumed.reversed()))
    var changed = assumed
    changed[0].outputDigest = "other"
    #expect(!expectation.holds(for: changed))
    #expect(!expectation.holds(for: Array(assumed.prefix(1))))
    changed = assumed
    changed[1].name = "c"
    #expect(!expectation.holds(for: changed))
  }
}
