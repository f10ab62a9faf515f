import Foundation
import Testing

@testable import RunnerCache

/// The hasher gathers small fields into blocks: digests must be exactly SHA-256 of the
/// length-prefixed fields, whatever the sizes and however they fall across block boundaries.
@Suite struct ContentHasherTests {
  static func field(_ bytes: [UInt8]) -> [UInt8] {
    withUnsafeBytes(of: Int64(bytes.count).littleEndian) { Array($0) } + bytes
  }

  @Test(arguments: [
    [1, 2, 3], [4095, 1, 7], [4088, 8], [5000], [3, 4096, 2, 9000, 1], Array(repeating: 100, count: 90),
  ])
  func fieldsHashAsTheirConcatenation(sizes: [Int]) {
    var hasher = ContentHasher()
    var whole: [UInt8] = []
    for (index, size) in sizes.enumerated() {
      let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
      bytes.withUnsafeBytes { hasher.add(bytes: $0) }
      whole += Self.field(bytes)
    }
    let expected = whole.withUnsafeBytes { ContentHasher.digest($0) }
    #expect(hasher.finalize() == expected)
    #expect(hasher.finalize() == expected, "finalize leaves the hasher as it was")
  }

  @Test func aFileHashesAsSha256sumSaysItDoes() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("hasher-\(UUID().uuidString)").path
    defer { unlink(path) }
    let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(CacheFileSystem.hashFile(path) == String(output.prefix(64)))
    #expect(bytes.withUnsafeBytes { ContentHasher.digest($0) } == String(output.prefix(64)))
  }
}
