import Foundation
import Testing

/// Issue 18's points done so far: a command gate's environment, a declared output never
/// created, a missing TMPDIR.
@Suite struct ReliabilityTests {
  @Test func aCommandGateSeesTheFilesAndTheTasksEnv() throws {
    let project = try TaskFileProject(
      """
      env: { FROM_FILE: f }
      tasks:
        a:
          env: { FROM_TASK: t }
          wait_for: { command: 'test "$FROM_FILE/$FROM_TASK" = f/t', timeout: 2s }
          run: echo gate held
      """)
    defer { project.remove() }
    let output = try project.run("a")
    #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
    #expect(output.stdout.contains("a | gate held"))
  }

  @Test func aDeclaredOutputNeverCreatedFailsTheTaskAndIsNeverUpToDate() throws {
    let project = try TaskFileProject(
      """
      tasks:
        typo: { sources: [in.txt], outputs: [out/never.txt], run: 'mkdir -p out && cp in.txt out/typo.txt' }
        plain: { outputs: [gone.txt], run: 'true' }
      """)
    defer { project.remove() }
    try project.write("in.txt", "x\n")
    let first = try project.run("typo")
    #expect(first.status == 1)
    #expect(first.stdout.contains("declared output 'out/never.txt' was not created"), "\(first.stdout)")
    let again = try project.run("typo")
    #expect(again.status == 1)
    #expect(!again.stdout.contains("up to date"))
    let plain = try project.run("plain")
    #expect(plain.status == 1)
    #expect(plain.stdout.contains("declared output 'gone.txt' was not created"))
  }

  @Test func aMissingTMPDIRIsNamedWithItsCause() throws {
    let project = try TaskFileProject("tasks:\n  a: echo\n")
    defer { project.remove() }
    let output = try project.run("a", environment: ["TMPDIR": "/nonexistent/tmp"])
    #expect(output.status == 2)
    #expect(
      output.stderr.contains(
        "cannot create a temporary directory in '/nonexistent/tmp' (TMPDIR): no such file or directory"),
      "\(output.stderr)")
  }
}
