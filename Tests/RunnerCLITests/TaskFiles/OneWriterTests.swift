import Foundation
import Testing

/// One task directory has one writer at a time, whichever file a run started from; and a
/// cache entry restores only under its own key.
@Suite struct OneWriterTests {
  static let deadline = Duration.seconds(120)

  @Test func aRunFromTheRootHoldsTheLockOfAnIncludedDirectory() throws {
    let project = try TaskFileProject("includes:\n  sub: sub/tasks.yml\ntasks:\n  top: echo top\n")
    defer { project.remove() }
    // The task holds until the test says go: the test sees it start, then tries `sub` alone.
    try project.write(
      "sub/tasks.yml",
      "tasks:\n  slow:\n    run: |\n      touch started\n      while [ ! -f go ]; do sleep 0.05; done\n      echo done\n"
    )
    let root = Process()
    root.executableURL = BinaryRunner.executable
    root.arguments = ["sub:slow"]
    root.currentDirectoryURL = project.directory
    root.standardOutput = FileHandle.nullDevice
    root.standardError = FileHandle.nullDevice
    try root.run()
    defer { if root.isRunning { root.terminate() } }
    let started = project.directory.appendingPathComponent("sub/started").path
    let limit = ContinuousClock.now + Self.deadline
    while !FileManager.default.fileExists(atPath: started), ContinuousClock.now < limit {
      usleep(20_000)  // waiting for the task to start, not moving a clock
    }
    #expect(FileManager.default.fileExists(atPath: started), "the root run's task started")
    let alone = try BinaryRunner.run(
      ["--no-wait", "slow"], in: project.directory.appendingPathComponent("sub"), deadline: Self.deadline)
    #expect(alone.status == 2, "\(alone.stdout)\(alone.stderr)")
    #expect(alone.stderr.contains("another runner holds the lock") && alone.stderr.contains(".runner/lock"))
    try project.write("sub/go", "")
    root.waitUntilExit()
    #expect(root.terminationStatus == 0)
    let after = try BinaryRunner.run(
      ["slow"], in: project.directory.appendingPathComponent("sub"), deadline: Self.deadline)
    #expect(after.status == 0, "once the root run ended, the lock is free: \(after.stderr)")
  }

  @Test func swappedCacheEntriesAreDamageNotHits() throws {
    let project = try TaskFileProject(
      "tasks:\n  a: { sources: [in.txt], outputs: [out.txt], run: cp in.txt out.txt }\n")
    defer { project.remove() }
    for content in ["1", "2"] {
      try project.write("in.txt", content)
      #expect(try project.run("a").status == 0)
    }
    let cache = project.directory.appendingPathComponent(".runner/cache")
    let entries = try FileManager.default.subpathsOfDirectory(atPath: cache.path)
      .filter { $0.split(separator: "/").count == 2 }
    try #require(entries.count == 2, "\(entries)")
    let (first, second) = (cache.appendingPathComponent(entries[0]), cache.appendingPathComponent(entries[1]))
    let swap = cache.appendingPathComponent("swap")
    try FileManager.default.moveItem(at: first, to: swap)
    try FileManager.default.moveItem(at: second, to: first)
    try FileManager.default.moveItem(at: swap, to: second)
    try project.write("in.txt", "1")
    let output = try project.run("a")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stderr.contains("holds the outputs of another key"), "\(output.stderr)")
    #expect(project.read("out.txt") == "1", "the task ran rather than restore the other input's output")
  }
}
