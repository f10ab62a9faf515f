import Foundation
import Testing

/// Each folder in Fixtures/ is one case: `args` (one argument a line), usually a `tasks.yml`,
/// and the expected `stdout`, `stderr` and `status`. The binary runs inside the folder.
/// `UPDATE_GOLDEN=1 swift test --filter GoldenTests` rewrites the expectations.
@Suite struct GoldenTests {
  static let fixtures = BinaryRunner.packageRoot.appendingPathComponent("Tests/RunnerCLITests/Fixtures")

  static var cases: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []).filter {
      FileManager.default.fileExists(atPath: fixtures.appendingPathComponent($0).appendingPathComponent("args").path)
    }.sorted()
  }

  @Test(arguments: cases)
  func fixture(name: String) throws {
    let directory = Self.fixtures.appendingPathComponent(name)
    let arguments = try String(contentsOf: directory.appendingPathComponent("args"), encoding: .utf8)
      .split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    let output = try BinaryRunner.run(arguments, in: directory)
    let actual = ["stdout": output.stdout, "stderr": output.stderr, "status": "\(output.status)\n"]
    if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
      for (file, text) in actual {
        try text.write(to: directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
      }
      return
    }
    for (file, text) in actual.sorted(by: { $0.key < $1.key }) {
      let expected = (try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)) ?? ""
      #expect(text == expected, "\(name)/\(file) differs")
    }
  }

  @Test func thereAreFixtures() {
    #expect(Self.cases.count >= 30)
  }
}
