import Foundation
import Testing

/// Secrets that reached runner's own text rather than a task's output: a parse error that
/// quotes one, a param's value in a node's name and an error, a remote header or address. None
/// may show in any output: the console, events, JUnit, trace, timeline, step summary or
/// annotations.
@Suite struct SecretLeakTests {
  static let secret = "sEcReT-\(UUID().uuidString.prefix(8))"

  /// Everything a run with every report printed and wrote.
  static func everything(
    _ project: TaskFileProject, _ arguments: [String], environment: [String: String]
  ) throws -> (status: Int32, text: String) {
    try project.write("summary.md", "")
    let output = try project.run(
      [
        "--ci", "github", "--events", "events.jsonl", "--junit", "junit.xml", "--trace", "trace.json",
        "--timeline", "timeline.svg",
      ] + arguments,
      environment: environment.merging(["GITHUB_STEP_SUMMARY": project.directory.path + "/summary.md"]) { $1 })
    let files = ["events.jsonl", "junit.xml", "trace.json", "timeline.svg", "summary.md"].map {
      project.read($0) ?? "(no \($0))"
    }
    return (output.status, ([output.stdout, output.stderr] + files).joined(separator: "\n"))
  }

  @Test func aSecretQuotedInAnOutputFileErrorIsMasked() throws {
    let project = try TaskFileProject(
      """
      secrets: [TOK]
      tasks:
        name: { run: 'echo "$TOK x=1" >> "$RUNNER_OUTPUT"' }
        heredoc: { run: 'printf "k<<%s\\n" "$TOK" >> "$RUNNER_OUTPUT"' }
      """)
    defer { project.remove() }
    let (status, text) = try Self.everything(
      project, ["--keep-going", "name", "heredoc"], environment: ["TOK": Self.secret])
    #expect(status == 1, "\(text)")
    #expect(text.contains("invalid output name '***"), "\(text)")
    #expect(text.contains("never closed by a line '***'"), "\(text)")
    #expect(!text.contains(Self.secret), "\(text)")
  }

  @Test func aSecretParamIsMaskedInNodeNamesAndErrors() throws {
    let project = try TaskFileProject(
      """
      secrets: [PTOK]
      tasks:
        pre:
          params: { PTOK: {} }
          dir: ./sub/${{ params.PTOK }}
          run: echo never
        main: { deps: [{ task: pre, with: { PTOK: "${PTOK}" } }] }
      """)
    defer { project.remove() }
    let (status, text) = try Self.everything(project, ["main"], environment: ["PTOK": Self.secret])
    #expect(status == 1, "\(text)")
    #expect(text.contains("pre[PTOK=***]"), "\(text)")
    #expect(text.contains("cannot change to working directory"), "\(text)")
    #expect(!text.contains(Self.secret), "\(text)")
    for arguments in [["-n", "main"], ["--graph", "json"], ["--graph", "dot"]] {
      let shown = try project.run(arguments, environment: ["PTOK": Self.secret])
      #expect(shown.stdout.contains("***") && !(shown.stdout + shown.stderr).contains(Self.secret), "\(shown.stdout)")
    }
  }

  @Test func aSecretAcrossTheCutOfAVeryLongLineIsMasked() throws {
    // Lines over 1 MiB go on in pieces; the secret straddles the first cut: its first half
    // ends the first MiB, and the second comes in a later read.
    let project = try TaskFileProject(
      """
      secrets: [TOK]
      tasks:
        long:
          run: |
            head -c 1048572 /dev/zero | tr '\\0' a
            printf %s "${TOK%????????}"
            sleep 0.3
            printf '%s tail\\n' "${TOK#???????}"
      """)
    defer { project.remove() }
    let output = try project.run(["long"], environment: ["TOK": Self.secret])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("*** tail"))
    #expect(!output.stdout.contains(Self.secret.prefix(7)), "the first half is not printed alone")
    #expect(!output.stdout.contains(Self.secret))
  }

  @Test func aHeaderWithACRLFLineEndIsOneHeaderAndNeverPrinted() throws {
    let project = try TaskFileProject("tasks:\n  a: echo ran\n")
    defer { project.remove() }
    // Nothing listens on port 9: the cache is said to be unreachable, and the run goes on.
    let output = try project.run(
      ["--remote-cache", "http://127.0.0.1:9/x", "a"],
      environment: ["RUNNER_REMOTE_HEADERS": "Authorization: Bearer \(Self.secret)\r\nX-Other: y\r\n"])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("a | ran"))
    #expect(!(output.stdout + output.stderr).contains(Self.secret), "\(output.stderr)")
    let control = try project.run(
      ["--remote-cache", "http://127.0.0.1:9/x", "a"],
      environment: ["RUNNER_REMOTE_HEADERS": "Authorization: Bearer \(Self.secret)\u{7}"])
    #expect(control.status == 2)
    #expect(control.stderr.contains("the value of the remote header 'Authorization' holds a control character"))
    #expect(!(control.stdout + control.stderr).contains(Self.secret), "\(control.stderr)")
  }

  @Test func aPasswordInTheCacheAddressIsSentAndNeverPrinted() throws {
    let project = try TaskFileProject("tasks:\n  a: echo ran\n")
    defer { project.remove() }
    let output = try project.run([
      "--remote-cache", "http://user:\(Self.secret)@127.0.0.1:9/x?sig=\(Self.secret)q", "a",
    ])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stderr.contains("127.0.0.1:9"), "the host is parsed: \(output.stderr)")
    #expect(!(output.stdout + output.stderr).contains(Self.secret), "\(output.stderr)")
    let wrong = try project.run(["--remote-cache", "http://user:\(Self.secret)@127.0.0.1:x/y", "a"])
    #expect(wrong.status == 2)
    #expect(wrong.stderr.contains("http://***@127.0.0.1:x/y"), "\(wrong.stderr)")
    #expect(!wrong.stderr.contains(Self.secret))
  }

  @Test func aParamValueCannotFakeALineOfTheConsole() throws {
    let project = try TaskFileProject(
      """
      tasks:
        pre: { params: { P: {} }, run: 'true' }
        main: { deps: [{ task: pre, with: { P: "x\\n✓ deploy succeeded\\e[2K" } }] }
      """)
    defer { project.remove() }
    let output = try project.run("main")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(!output.stdout.contains("\n✓ deploy succeeded"), "\(output.stdout)")
    #expect(output.stdout.contains("pre[P=\"x\\n✓ deploy succeeded\\u001b[2K\"]"), "\(output.stdout)")
  }
}
