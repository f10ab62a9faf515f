import Foundation
import Testing

/// Too few processes left for runner's threads (`ulimit -u`, which counts threads): exit 2 with
/// the cause, where the Swift runtime hung or trapped. Needs root to become another user
/// (root is exempt from the limit), and `setpriv`.
@Suite(
  .enabled(
    if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
    "needs root and setpriv to run as a user the limit applies to"))
struct ProcessLimitTests {
  /// A user no process runs as, so the limit counts only what the test starts.
  static let user = "54321"

  func run(limit: Int) throws -> String {
    let project = try TaskFileProject("tasks:\n  a: echo ran\n")
    defer { project.remove() }
    // The binary and the project must be reachable by that user.
    _ = try project.shell("cp \"$RUNNER\" runner && chmod 755 runner && chmod 777 . && chmod 644 tasks.yml")
    // bash: dash's ulimit has no -u.
    return try project.shell(
      "timeout -s KILL 60 setpriv --reuid=\(Self.user) --regid=\(Self.user) --clear-groups "
        + "bash -c 'ulimit -u \(limit); ./runner --no-cache a 2>&1; echo \"status $?\"'; echo \"timeout $?\"")
  }

  @Test(arguments: [3, 5, 8])
  func tooFewProcessesIsAUsageErrorWithTheCause(limit: Int) throws {
    let output = try run(limit: limit)
    #expect(output.contains("status 2"), "\(output)")
    #expect(output.contains("(ulimit -u)") && output.contains("raise the limit"), "\(output)")
  }

  @Test func enoughProcessesRun() throws {
    let output = try run(limit: 64 + ProcessInfo.processInfo.activeProcessorCount)
    #expect(output.contains("a | ran") && output.contains("status 0"), "\(output)")
  }
}
