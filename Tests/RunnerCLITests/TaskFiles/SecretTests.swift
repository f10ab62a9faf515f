import Foundation
import Testing

/// `secrets:` through the binary: the value reaches the task, and is masked in everything
/// runner prints or keeps (console, failure summary, events, cache log, plan, describe, graph
/// JSON); it counts in no key, even where `key_env` names it.
@Suite struct SecretTests {
  static let secret = "hunter2-\(UUID().uuidString.prefix(8))"

  static let file = """
    secrets: [TOKEN]
    key_env: [TOKEN]
    env:
      API: ${TOKEN}
    tasks:
      build:
        env: { DERIVED: "${TOKEN}-suffix" }
        sources: [in.txt]
        run: |
          echo "token $TOKEN api $API derived $DERIVED"
          echo "stderr $TOKEN" >&2
          printf '%s' "$TOKEN" > got.txt
      deploy:
        secrets: [DEPLOY_KEY]
        run: |
          echo "key is $DEPLOY_KEY"
          printf 'multi\\nline %s\\n' "$DEPLOY_KEY"
          exit 3
    """

  static let environment = ["TOKEN": secret, "DEPLOY_KEY": "line one\nline two"]

  @Test func theTaskGetsTheValueAndNothingPrintedShowsIt() throws {
    let project = try TaskFileProject(Self.file)
    defer { project.remove() }
    try project.write("in.txt", "x")
    let events = project.directory.appendingPathComponent("events.jsonl").path
    let output = try project.run(
      ["--keep-going", "--events", events, "build", "deploy"], environment: Self.environment)
    #expect(output.status == 1, "\(output.stderr)")
    #expect(project.read("got.txt") == Self.secret, "the task saw the value")
    let printed = output.stdout + output.stderr + (project.read("events.jsonl") ?? "")
    #expect(printed.contains("token *** api *** derived ***-suffix"), "\(printed)")
    #expect(printed.contains("stderr ***"))
    #expect(printed.contains("key is ***"), "each line of a multi-line value is masked")
    #expect(!printed.contains(Self.secret) && !printed.contains("line one") && !printed.contains("line two"))
    let plan = try project.run(["-n", "build"], environment: Self.environment)
    let described = try project.run(["--describe", "build"], environment: Self.environment)
    let graph = try project.run(["--graph", "json"], environment: Self.environment)
    for shown in [plan.stdout, described.stdout, graph.stdout] {
      #expect(shown.contains("***"), "\(shown)")
      #expect(!shown.contains(Self.secret), "\(shown)")
    }
    // The cache entry's log was masked before it was kept.
    let cached = try FileManager.default.subpathsOfDirectory(
      atPath: project.directory.appendingPathComponent(".runner/cache").path)
    for path in cached {
      let bytes = FileManager.default.contents(
        atPath: project.directory.appendingPathComponent(".runner/cache/" + path).path)
      #expect(bytes.map { !String(decoding: $0, as: UTF8.self).contains(Self.secret) } ?? true, "\(path)")
    }
  }

  /// A new secret value re-runs nothing (it is in no key), though `key_env` names it; a change
  /// to another variable that does count still re-runs.
  @Test func aSecretCountsInNoKey() throws {
    let project = try TaskFileProject(Self.file)
    defer { project.remove() }
    try project.write("in.txt", "x")
    let first = try project.run(["build"], environment: Self.environment)
    #expect(first.status == 0, "\(first.stderr)")
    let again = try project.run(["build"], environment: ["TOKEN": "another-\(Self.secret)"])
    #expect(again.stdout.contains("✓ build up to date"), "\(again.stdout)")
    try project.write("in.txt", "y")
    let changed = try project.run(["build"], environment: Self.environment)
    #expect(changed.stdout.contains("token *** api"), "\(changed.stdout)")
  }

  @Test func aBadNameIsAUsageErrorAtItsPlace() throws {
    let project = try TaskFileProject("secrets: [\"A=B\"]\ntasks:\n  t: true\n")
    defer { project.remove() }
    let output = try project.run(["t"])
    #expect(output.status == 2)
    #expect(output.stderr.contains("tasks.yml:1:"), "\(output.stderr)")
  }
}
