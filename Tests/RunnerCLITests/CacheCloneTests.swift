import Foundation
import Testing

/// Big outputs in and out of the local cache through the built binary: each file read once, a
/// big one at a block boundary of its entry, its blocks shared with the entry where the file
/// system can (reflinks: XFS, Btrfs).
@Suite struct CacheCloneTests {
  static let tasks = """
    tasks:
      big:
        run: |
          head -c 3000000 /dev/urandom > big.bin
          head -c 70000 /dev/urandom > middle.bin
          echo small > small.txt
          head -c 5000000 /dev/urandom > last.bin
        sources: [tasks.yml]
        outputs: [big.bin, middle.bin, small.txt, last.bin]

    """
  static let outputs = ["big.bin", "middle.bin", "small.txt", "last.bin"]

  /// A directory on a file system with reflinks, which `.ci/run` mounts (an XFS image on a loop
  /// device); nil: the test that needs one is skipped, saying why.
  static let reflinkDirectory = ProcessInfo.processInfo.environment["RUNNER_TEST_REFLINK_DIR"]

  static func project(in parent: URL) throws -> URL {
    let directory = parent.appendingPathComponent("runner-clone-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try tasks.write(to: directory.appendingPathComponent("tasks.yml"), atomically: false, encoding: .utf8)
    return directory
  }

  /// Runs the task, keeps its outputs' bytes, removes them, and runs it again: restored.
  static func storeAndRestore(_ directory: URL) throws -> [String: Data] {
    let first = try BinaryRunner.run(["big"], in: directory)
    #expect(first.status == 0, "\(first.stderr)")
    #expect(!first.stderr.contains("cannot store"), "\(first.stderr)")
    var bytes: [String: Data] = [:]
    for name in outputs {
      let url = directory.appendingPathComponent(name)
      bytes[name] = try Data(contentsOf: url)
      try FileManager.default.removeItem(at: url)
    }
    let second = try BinaryRunner.run(["big"], in: directory)
    #expect(second.status == 0 && second.stdout.contains("restored from cache"), "\(second.stdout)\(second.stderr)")
    for name in outputs {
      #expect(try Data(contentsOf: directory.appendingPathComponent(name)) == bytes[name], "\(name)")
    }
    return bytes
  }

  /// The one entry file under `.runner/cache`.
  static func entry(in directory: URL) throws -> Data {
    let cache = directory.appendingPathComponent(".runner/cache")
    let files = FileManager.default.enumerator(at: cache, includingPropertiesForKeys: nil)!.compactMap { $0 as? URL }
      .filter { $0.pathComponents.suffix(2).first?.count == 2 && !$0.lastPathComponent.hasPrefix(".") }
      .filter { $0.lastPathComponent.count == 64 }
    try #require(files.count == 1, "\(files)")
    return try Data(contentsOf: files[0])
  }

  @Test func bigOutputsStartAtABlockBoundaryAndComeBackWhole() throws {
    let directory = try Self.project(in: FileManager.default.temporaryDirectory)
    defer { try? FileManager.default.removeItem(at: directory) }
    let bytes = try Self.storeAndRestore(directory)
    let entry = try Self.entry(in: directory)
    // In the entry's order (its header's): each file of 64 KiB or more at a multiple of 4 096,
    // after zeros; a small one right after the file before it; the last at the end.
    let ranges = try Self.outputs.map { name in (name, try #require(entry.range(of: bytes[name]!))) }
      .sorted { $0.1.lowerBound < $1.1.lowerBound }
    for (index, (name, range)) in ranges.enumerated() where index > 0 {
      let previous = ranges[index - 1].1
      if bytes[name]!.count >= 65536 {
        #expect(range.lowerBound % 4096 == 0, "\(name) at \(range.lowerBound)")
        #expect(entry[previous.upperBound..<range.lowerBound].allSatisfy { $0 == 0 }, "\(name)")
        #expect(range.lowerBound - previous.upperBound < 4096, "\(name)")
      } else {
        #expect(range.lowerBound == previous.upperBound, "\(name)")
      }
    }
    #expect(ranges.last?.1.upperBound == entry.count)
  }

  /// `filefrag -v` marks extents whose blocks another file shares.
  static func sharesBlocks(_ path: String) throws -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/sbin/filefrag")
    process.arguments = ["-v", path]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return text.contains("shared")
  }

  @Test(.enabled(if: reflinkDirectory != nil, "RUNNER_TEST_REFLINK_DIR is not set (a directory on XFS or Btrfs)"))
  func onAFileSystemWithReflinksBigOutputsShareTheirBlocks() throws {
    let directory = try Self.project(in: URL(fileURLWithPath: Self.reflinkDirectory!))
    defer { try? FileManager.default.removeItem(at: directory) }
    let first = try BinaryRunner.run(["big"], in: directory)
    #expect(first.status == 0, "\(first.stderr)")
    // Stored: the output's blocks are the entry's.
    #expect(try Self.sharesBlocks(directory.appendingPathComponent("big.bin").path))
    #expect(try !Self.sharesBlocks(directory.appendingPathComponent("small.txt").path))
    for name in Self.outputs { try FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
    _ = try Self.storeAndRestore(directory)
    // Restored: the new file's blocks are the entry's too.
    #expect(try Self.sharesBlocks(directory.appendingPathComponent("last.bin").path))
    #expect(try Self.sharesBlocks(directory.appendingPathComponent("middle.bin").path))
  }
}
