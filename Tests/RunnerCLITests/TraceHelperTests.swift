import Foundation
import Testing

/// `runner-trace`, the static program remote execution sends to workers, run as a worker runs
/// it: the command's exit status or signal is its own, and its log names the working directory
/// and what the command's processes did there.
struct TraceHelperTests {
  static let helper = BinaryRunner.executable.deletingLastPathComponent().appendingPathComponent("runner-trace")

  /// Runs the helper in `directory`; its exit status (128+N for a signal) and the log's records.
  func trace(_ script: String, in directory: URL) throws -> (status: Int32, records: [String]) {
    let process = Process()
    process.executableURL = Self.helper
    process.arguments = [".runner/trace.log", "/bin/sh", "-c", script]
    process.currentDirectoryURL = directory
    try process.run()
    process.waitUntilExit()
    let status =
      process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    let log = try Data(contentsOf: directory.appendingPathComponent(".runner/trace.log"))
    let header = Data("runner-trace 1\n".utf8)
    #expect(log.starts(with: header))
    let records = log.dropFirst(header.count).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    return (status, records)
  }

  @Test func theLogNamesTheDirectoryAndWhatTheCommandDid() throws {
    let project = try TaskFileProject("tasks: {}\n")
    defer { project.remove() }
    try project.write("in.txt", "x\n")
    let directory = project.directory.resolvingSymlinksInPath().path
    let (status, records) = try trace("cat in.txt > out.txt; test -e absent.txt; exit 3", in: project.directory)
    #expect(status == 3)
    #expect(records.first == "c" + directory, "\(records.prefix(3))")
    #expect(records.contains("r\(directory)/in.txt"), "\(records)")
    #expect(records.contains("w\(directory)/out.txt"), "\(records)")
    #expect(records.contains("p\(directory)/absent.txt"), "\(records)")
    #expect(!records.contains { $0.hasPrefix("!") }, "a whole trace: \(records.filter { $0.hasPrefix("!") })")
  }

  @Test func aSignalThatEndsTheCommandEndsTheHelper() throws {
    let project = try TaskFileProject("tasks: {}\n")
    defer { project.remove() }
    let (status, records) = try trace("kill -KILL $$", in: project.directory)
    #expect(status == 128 + 9)
    #expect(records.first?.hasPrefix("c/") == true)
  }

  @Test func theHelperIsStatic() throws {
    let output = try TaskFileProject.shell("ldd '\(Self.helper.path)' 2>&1 || true", in: URL(fileURLWithPath: "/"))
    #expect(output.contains("not a dynamic executable"), "\(output)")
  }
}
