import Foundation
import Testing

@testable import RunnerExecution
@testable import RunnerProcess

/// The tracer on real processes: what a traced process tree does to files, through the shells,
/// tools and system calls tasks use.
@Suite(.serialized, .enabled(if: ProcessTrace.unavailability == nil, "seccomp user notification is not available"))
struct ProcessTraceTests {
  let reactor = ProcessReactor.shared
  typealias Support = ProcessTestSupport

  /// A scratch directory with `files` in it (name → text).
  func directory(_ files: [String: String] = [:]) throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("runner-trace-\(UUID().uuidString)")
    for (name, text) in files {
      let file = url.appendingPathComponent(name)
      try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try text.write(to: file, atomically: false, encoding: .utf8)
    }
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.resolvingSymlinksInPath().path
  }

  /// Runs `script` under `sh -c` in `directory`, traced.
  func trace(_ script: String, in directory: String, arguments: [String]? = nil) async throws -> (
    ProcessOutcome, ProcessTrace.Log
  ) {
    let trace = ProcessTrace()
    var spec = ProcessSpec(
      arguments: arguments ?? ["/bin/sh", "-c", script], environment: ["PATH": Support.path],
      workingDirectory: directory)
    spec.trace = trace
    let outcome = try await reactor.run(spec, sink: CollectingSink(), grace: .seconds(1))
    return (outcome, trace.finish())
  }

  func paths(_ log: ProcessTrace.Log, _ kind: ProcessTrace.Kind, under directory: String) -> Set<String> {
    Set(log.accesses.filter { $0.kind == kind && $0.path.hasPrefix(directory + "/") }.map { $0.path })
  }

  @Test func readsWritesAndRelativePathsAfterCd() async throws {
    let base = try directory(["src/a.txt": "a\n", "inc/h.txt": "h\n"])
    let (outcome, log) = try await trace("cat src/a.txt > out.txt; cd inc && cat h.txt >> ../out.txt", in: base)
    #expect(outcome == .exited(0))
    #expect(log.isComplete, "\(log.problem ?? "")")
    let reads = paths(log, .read, under: base)
    #expect(reads.contains(base + "/src/a.txt"))
    #expect(reads.contains(base + "/inc/h.txt"), "a path relative to the directory after cd")
    #expect(
      paths(log, .written, under: base).contains(base + "/out.txt")
        || paths(log, .written, under: base).contains(base + "/inc/../out.txt"))
    #expect(log.accesses.contains { $0.kind == .executed && $0.path.hasSuffix("/cat") }, "exec'd programs too")
  }

  @Test func lookupsOfAbsentFilesListingsRemovalsAndRenames() async throws {
    let base = try directory(["dir/one": "1", "old": "o"])
    let (_, log) = try await trace(
      "test -e missing.h; ls dir > /dev/null; rm dir/one; mv old new; mkdir made", in: base)
    #expect(paths(log, .probed, under: base).contains(base + "/missing.h"))
    #expect(log.accesses.contains { $0.kind == .listed && $0.path == base + "/dir" })
    #expect(paths(log, .removed, under: base).isSuperset(of: [base + "/dir/one", base + "/old"]))
    #expect(paths(log, .written, under: base).contains(base + "/new"))
    #expect(paths(log, .madeDirectory, under: base).contains(base + "/made"))
  }

  /// A static binary makes its calls itself, with no C library a preload could hook.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/busybox"), "needs busybox-static"))
  func aStaticBinaryIsSeen() async throws {
    let base = try directory(["a.txt": "a\n"])
    let (outcome, log) = try await trace("", in: base, arguments: ["/bin/busybox", "cat", "a.txt"])
    #expect(outcome == .exited(0))
    #expect(paths(log, .read, under: base) == [base + "/a.txt"])
  }

  /// Descendants inherit the filter: a background child, and one that outlives the task and
  /// reads only once the trace is taken (when the test makes `go`).
  @Test func childrenAndADaemonTheTaskLeavesAreSeenUntilTheEnd() async throws {
    let base = try directory(["a.txt": "a\n", "b.txt": "b\n"])
    let script = """
      (cat a.txt > /dev/null) & wait
      (while [ ! -e go ]; do sleep 0.01; done; cat b.txt > /dev/null; echo done > daemon.txt) > /dev/null 2>&1 &
      """
    let (_, log) = try await trace(script, in: base)
    #expect(paths(log, .read, under: base).contains(base + "/a.txt"))
    // The daemon goes on (its calls let through, unrecorded) and ends on its own.
    #expect(FileManager.default.createFile(atPath: base + "/go", contents: nil))
    let deadline = ContinuousClock.now + .seconds(60)
    while !FileManager.default.fileExists(atPath: base + "/daemon.txt"), ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(FileManager.default.fileExists(atPath: base + "/daemon.txt"), "the daemon's calls went on")
    #expect(!paths(log, .read, under: base).contains(base + "/b.txt"), "after the task ended: not its")
  }

  /// `openat` with a directory descriptor: the path is resolved against that directory.
  @Test func python3OpensWithAtDirectoryDescriptors() async throws {
    let python = "/usr/bin/python3"
    try #require(FileManager.default.isExecutableFile(atPath: python), "needs python3")
    let base = try directory(["sub/x.txt": "x"])
    let script =
      "import os; d = os.open('sub', os.O_RDONLY); f = os.open('x.txt', os.O_RDONLY, dir_fd=d); os.read(f, 1)"
    let (outcome, log) = try await trace("", in: base, arguments: [python, "-c", script])
    #expect(outcome == .exited(0))
    #expect(paths(log, .read, under: base).contains(base + "/sub/x.txt"))
  }

  @Test func manyFilesReadByOneTaskAreAllRecorded() async throws {
    var files: [String: String] = [:]
    for index in 0..<10_000 { files["f/\(index).txt"] = "\(index)" }
    let base = try directory(files)
    let (_, log) = try await trace("cat f/*.txt > /dev/null", in: base)
    #expect(paths(log, .read, under: base).count == 10_000)
    #expect(log.isComplete)
  }

  /// `posix_spawn` (glibc's is a vfork-like clone) and a rename over a file.
  @Test func posixSpawnAndARenameOverAFile() async throws {
    let python = "/usr/bin/python3"
    try #require(FileManager.default.isExecutableFile(atPath: python), "needs python3")
    let base = try directory(["a.txt": "a", "old.txt": "o", "new.txt": "n"])
    let script = """
      import os
      pid = os.posix_spawn('/bin/cat', ['cat', 'a.txt'], os.environ)
      os.waitpid(pid, 0)
      os.rename('new.txt', 'old.txt')
      """
    let (outcome, log) = try await trace("", in: base, arguments: [python, "-c", script])
    #expect(outcome == .exited(0))
    #expect(paths(log, .read, under: base).contains(base + "/a.txt"), "read by the spawned cat")
    #expect(paths(log, .removed, under: base).contains(base + "/new.txt"))
    #expect(paths(log, .written, under: base).contains(base + "/old.txt"), "renamed over")
  }
}
