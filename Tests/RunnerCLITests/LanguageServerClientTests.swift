import Foundation
import Testing

/// `runner lsp` driven end to end by a real language client: pytest-lsp (pygls, lsprotocol),
/// which `.ci/run` installs and names in RUNNER_TEST_PYTHON. The cases are in
/// LanguageServer/test_runner_lsp.py; each is one pytest test.
struct LanguageServerClientTests {
  /// The Python that has pytest-lsp, or nil (the test is then skipped, saying why).
  static let python: String? = {
    guard let python = ProcessInfo.processInfo.environment["RUNNER_TEST_PYTHON"] else { return nil }
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: python)
    probe.arguments = ["-c", "import pytest_lsp"]
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return nil }
    probe.waitUntilExit()
    return probe.terminationStatus == 0 ? python : nil
  }()

  @Test(.enabled(if: python != nil, "pytest-lsp is not installed (RUNNER_TEST_PYTHON names a Python that has it)"))
  func aRealLanguageClientGetsDiagnosticsCompletionHoverAndDefinitions() throws {
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
