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
    // Built from a checkout when git can read it here (it refuses a checkout another user owns).
    let git = Process()
    git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    git.arguments = ["git", "-C", BinaryRunner.packageRoot.path, "rev-parse", "--short=12", "HEAD"]
    git.standardOutput = FileHandle.nullDevice
    git.standardError = FileHandle.nullDevice
    try git.run()
    git.waitUntilExit()
    let builtFromCheckout = git.terminationStatus == 0
    let pattern = builtFromCheckout ? #"^\d+\.\d+\.\d+ \([0-9a-f]{12}(-dirty)?\)$"# : #"^\d+\.\d+\.\d+$"#
    #expect(line.range(of: pattern, options: .regularExpression) != nil, "unexpected version line '\(line)'")
  }
}
