import Foundation
import Testing

/// `runner lsp` driven end to end by a real language client: pytest-lsp (pygls, lsprotocol),
/// which `.ci/run` installs and names in RUNNER_TEST_PYTHON. The cases are in
/// LanguageServer/test_runner_lsp.py; each is one pytest test.
struct LanguageServerClientTests {
  /// The Python `.ci/run` installed pytest-lsp into; nil: the test is skipped, saying why.
  static let python = ProcessInfo.processInfo.environment["RUNNER_TEST_PYTHON"]

  @Test(.enabled(if: python != nil, "RUNNER_TEST_PYTHON is not set (a Python with pytest-lsp, as .ci/run installs)"))
  func aRealLanguageClientGetsDiagnosticsCompletionHoverAndDefinitions() throws {
    // Named, it must have pytest-lsp: a CI that installed it fails here rather than skip.
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: Self.python!)
    probe.arguments = ["-c", "import pytest_lsp"]
    try probe.run()
    probe.waitUntilExit()
    try #require(probe.terminationStatus == 0, "RUNNER_TEST_PYTHON cannot import pytest_lsp")
    let tests = BinaryRunner.packageRoot.appendingPathComponent("Tests/RunnerCLITests/LanguageServer")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.python!)
    process.arguments = [
      "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto", "-o",
      "asyncio_default_fixture_loop_scope=function", tests.path,
    ]
    process.environment = ProcessInfo.processInfo.environment.merging(["RUNNER": BinaryRunner.executable.path]) {
      $1
    }
    let out = Pipe()
    process.standardOutput = out
    process.standardError = out
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(text)")
    #expect(text.contains(" passed"), "\(text)")
    #expect(!text.contains("skipped"), "\(text)")
  }
}
