import Foundation
import Testing

/// `--output grouped|quiet` on real, interleaving tasks.
@Suite struct OutputModeTests {
  let yaml = """
    tasks:
      a: sh -c 'echo a1; sleep 0.3; echo a2'
      b: sh -c 'echo b1; sleep 0.1; echo b2'
      bad: {deps: [b], run: sh -c 'echo oops; exit 3'}
    """

  func run(_ mode: String) throws -> BinaryRunner.Output {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-mode-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try yaml.write(to: directory.appendingPathComponent("tasks.yml"), atomically: true, encoding: .utf8)
    return try BinaryRunner.run(["-k", "-j3", "--output", mode, "**"], in: directory)
  }

  @Test func groupedKeepsEachTasksLinesTogether() throws {
    let output = try run("grouped")
    #expect(output.status == 1)
    let lines = output.stdout.split(separator: "\n").map(String.init)
    for task in ["a", "b"] {
      let first = try #require(lines.firstIndex(of: "\(task)   | \(task)1"))
      #expect(lines[first + 1] == "\(task)   | \(task)2")
    }
  }

  @Test func quietShowsOnlyWhatFailed() throws {
    let output = try run("quiet")
    #expect(output.status == 1)
    #expect(output.stdout.contains("bad | oops"))
    #expect(!output.stdout.contains("a   | a1"))
    #expect(!output.stdout.contains("▶"))
    #expect(output.stdout.contains("3 task(s): 2 succeeded, 1 failed"))
  }
}
