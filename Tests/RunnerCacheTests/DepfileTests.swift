import RunnerModel
import TestSupport
import Testing

@testable import RunnerCache

/// Reading a depfile as compilers write them, and ninja reads them.
@Suite struct DepfileParserTests {
  func read(_ text: String) -> Result<[String], Depfile.Problem> { Depfile.prerequisites(Array(text.utf8)) }

  @Test func gccOutputWithContinuationsAndPhonyTargets() throws {
    // `gcc -MMD -MP`: continued lines, then an empty rule per header.
    let text =
      "build/main.o: src/main.c include/util.h \\\n  include/config.h\n\ninclude/util.h:\n\ninclude/config.h:\n"
    #expect(try read(text).get() == ["src/main.c", "include/util.h", "include/config.h"])
  }

  @Test func escapesAsMakeReadsThem() throws {
    let text = "out/a\\ b.o: src/a\\ b.c lib/\\#x.h cost$$.h C\\\\dir\\\\x.h\n"
    #expect(try read(text).get() == ["src/a b.c", "lib/#x.h", "cost$.h", "C\\\\dir\\\\x.h"])
  }

  @Test func severalRulesAndTargetsEachFileOnce() throws {
    let text = "a.o b.o: x.h y.h\nc.o : x.h z.h\nd.o:w.h\r\n"
    #expect(try read(text).get() == ["x.h", "y.h", "z.h", "w.h"])
  }

  @Test func emptyOrCommentOnlyNamesNothing() throws {
    #expect(try read("").get() == [])
    #expect(try read("# made by a tool\n\n").get() == [])
    #expect(try read("out.o:\n").get() == [])
  }

  @Test func aRuleWithoutAColonIsAProblemAtItsLine() {
    #expect(
      read("a.o: x.h\nnot a rule\n")
        == .failure(Depfile.Problem(line: 2, reason: "expected 'target: prerequisites', found no ':'")))
    #expect(read("a.o: x.h \\\n  y.h\nz.h w.h\n").failureLine == 3)
    #expect(read("a.o: x\u{0}.h\n").failureLine == 1)
  }
}

extension Result where Failure == Depfile.Problem {
  fileprivate var failureLine: Int? {
    if case .failure(let problem) = self { return problem.line }
    return nil
  }
}

/// The engine's decision for a task with a `depfile`, on a file system in memory: the files
/// it named last time are inputs like its sources.
@Suite struct DepfileDecisionTests {
  let files = MemoryFileSystem()

  init() {
    files.makeDirectory("/p/.runner")
    files.write("/p/src/main.c", "int main;")
    files.write("/p/include/util.h", "hello")
    files.tick()
  }

  var task: TaskDefinition {
    var task = TaskDefinition(
      name: "compile", location: SourceLocation(file: "tasks.yml", line: 1, column: 1), index: 0)
    task.action = .shell([Command(text: "cc -MMD -MF out/main.d -c src/main.c", location: task.location)])
    task.sources = ["src/main.c"]
    task.depfile = "out/main.d"
    return task
  }

  var disk: Disk { Disk(mark: "/p/.runner/clock", clock: TestClock(wall: 0), files: files) }

  func fingerprint(_ task: TaskDefinition, _ previous: TaskRecord?) -> Fingerprint {
    Fingerprint(task: task, workingDirectory: "/p", environment: [], dependencies: [], previous: previous, disk: disk)
  }

  /// What a run records: its key with the files the depfile named, hashed after the run.
  func record(_ task: TaskDefinition, _ fingerprint: Fingerprint, read: [String]) -> TaskRecord {
    let final = fingerprint.discovering(
      Fingerprint.hashFiles(read, in: "/p", previous: [], disk: disk), task: task)
    var record = TaskRecord(
      fingerprint: final.value, operation: final.operation, directory: final.directory,
      environment: final.environment, dependencies: final.dependencies, sources: final.sources, outputs: [],
      values: [], outputDigest: "", walk: final.walk, discovered: final.discovered)
    record.outcome = .ran
    return record
  }

  func reason(_ task: TaskDefinition, _ record: TaskRecord?) -> RunReason? {
    Judgement.of(record, fingerprint(task, record), task: task, directory: "/p", disk: disk) { false }.reason
  }

  @Test func aHeaderTheDepfileNamedIsAnInput() {
    let first = fingerprint(task, nil)
    #expect(first.discovered == nil)
    let ran = record(task, first, read: ["src/main.c", "include/util.h"])
    #expect(ran.fingerprint != first.value, "a key no run stores under until the depfile is read")
    #expect(reason(task, ran) == nil)
    files.write("/p/include/util.h", "bye")
    #expect(reason(task, ran) == .sourceChanged(SourceChange(path: "include/util.h", kind: .changed), more: 0))
    files.write("/p/include/util.h", "hello")
    #expect(reason(task, ran) == nil, "the same content again: the same key")
    #expect(files.remove("/p/include/util.h"))
    #expect(reason(task, ran) == .sourceChanged(SourceChange(path: "include/util.h", kind: .removed), more: 0))
  }

  @Test func aDepfileAddedToATaskIsReadBeforeItsRecordCounts() {
    var plain = task
    plain.depfile = nil
    let before = record(plain, fingerprint(plain, nil), read: [])
    #expect(reason(task, TaskRecord(copying: before, discovered: nil)) == .readsNotRecorded)
  }

  @Test func keysTellUnreadEmptyAndNamedApart() {
    let unread = fingerprint(task, nil)
    let empty = unread.discovering([], task: task)
    let named = unread.discovering(
      Fingerprint.hashFiles(["include/util.h"], in: "/p", previous: [], disk: disk), task: task)
    var plain = task
    plain.depfile = nil
    let keys = [unread.value, empty.value, named.value, fingerprint(plain, nil).value]
    #expect(Set(keys).count == 4)
    // A file it named that is gone is in the key as gone.
    #expect(files.remove("/p/include/util.h"))
    let gone = unread.discovering(
      Fingerprint.hashFiles(["include/util.h"], in: "/p", previous: [], disk: disk), task: task)
    #expect(gone.value != named.value && gone.value != empty.value)
  }

  @Test func theFilesReadRoundTripThroughTheState() throws {
    let ran = record(task, fingerprint(task, nil), read: ["src/main.c", "include/util.h"])
    var empty = ran
    empty.discovered = []
    let bytes = BuildState(tasks: ["a": ran, "b": empty, "c": TaskRecord(copying: ran, discovered: nil)]).encoded()
    let read = try BuildState(decoding: bytes, path: "state")
    #expect(read.tasks["a"]?.discovered == ran.discovered)
    #expect(read.tasks["b"]?.discovered == [])
    #expect(read.tasks["c"]?.discovered == nil)
  }
}

extension TaskRecord {
  fileprivate init(copying record: TaskRecord, discovered: [FileRecord]?) {
    self = record
    self.discovered = discovered
  }
}
