import Foundation
import Testing

@Suite struct VersionTests {
  /// `runner --version`: the semantic version, and the commit it was built from when the build
  /// ran in a git checkout (as `swift build` in this package does).
  @Test func versionNamesTheReleaseAndTheCommit() throws {
    let output = try BinaryRunner.run(["--version"], in: BinaryRunner.packageRoot)
    #expect(output.status == 0)
    #expect(output.stderr == "")
    let line = output.stdout.trimmingCharacters(in: .newlines)
    let builtFromCheckout = FileManager.default.fileExists(
      atPath: BinaryRunner.packageRoot.appendingPathComponent(".git").path)
    let pattern = builtFromCheckout ? #"^\d+\.\d+\.\d+ \([0-9a-f]{12}(-dirty)?\)$"# : #"^\d+\.\d+\.\d+$"#
    #expect(line.range(of: pattern, options: .regularExpression) != nil, "unexpected version line '\(line)'")
  }
}
