import Foundation
import Testing

/// `.env` entries that override runner's environment, `.env` text a command prints, and what a
/// param's `sh:` default sees.
@Suite struct DotEnvSourcesTests {
  @Test func anOverridingFileWinsOverRunnersEnvironmentButNotTheFilesEnv() throws {
    let project = try TaskFileProject(
      """
      dotenv: [{ path: .env, override: true }, plain.env]
      env: { FROM_ENV: file-env, READS: "${KEY}-read" }
      tasks:
        show: 'echo "$KEY|$FROM_ENV|$READS|$PLAIN"'
      """)
    defer { project.remove() }
    try project.write(".env", "KEY=dotenv\nFROM_ENV=dotenv-loses\n")
    try project.write("plain.env", "PLAIN=plain-loses\n")
    let output = try project.run(["show"], environment: ["KEY": "shell", "PLAIN": "shell"])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("show | dotenv|file-env|dotenv-read|shell\n"), "\(output.stdout)")
    // A later file that does not override gives way to runner's environment again.
    try project.write("plain.env", "KEY=later\n")
    let later = try project.run(["show"], environment: ["KEY": "shell"])
    #expect(later.stdout.contains("show | shell|"), "\(later.stdout)")
  }

  @Test func aTasksOverridingFileWinsForThatTaskOnly() throws {
    let project = try TaskFileProject(
      """
      tasks:
        one:
          dotenv: [{ path: one.env, override: true }]
          run: echo "one $KEY"
        two: echo "two $KEY"
      """)
    defer { project.remove() }
    try project.write("one.env", "KEY=from-file\n")
    let output = try project.run(["one", "two"], environment: ["KEY": "shell"])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("one | one from-file\n"), "\(output.stdout)")
    #expect(output.stdout.contains("two | two shell\n"), "\(output.stdout)")
  }

  @Test func aCommandsOutputIsReadAsAnEnvFile() throws {
    let project = try TaskFileProject(
      """
      dotenv:
        - { sh: "printf 'A=%s\\\\nB=\\"quoted ${A}\\"\\\\n' \\"$(cat a.txt)\\"" }
        - { sh: "echo A=second", override: true }
      tasks:
        show: 'echo "$A|$B"'
      """)
    defer { project.remove() }
    try project.write("a.txt", "first\n")
    let output = try project.run(["show"], environment: ["A": "shell"])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("show | second|quoted shell\n"), "\(output.stdout)")
    let described = try project.run("--describe", "show")
    #expect(described.stdout.contains("B=quoted first  tasks.yml:2 (dotenv)"), "\(described.stdout)")
  }

  @Test func aFailingOrMalformedCommandIsAnErrorAtItsEntry() throws {
    let project = try TaskFileProject("dotenv: [{ sh: 'exit 3' }]\ntasks:\n  a: echo\n")
    defer { project.remove() }
    let failed = try project.run("a")
    #expect(failed.status == 2)
    #expect(
      failed.stderr.contains("tasks.yml:1:10: error: dotenv command 'exit 3' failed (exit status 3)"),
      "\(failed.stderr)")
    try project.write("tasks.yml", "dotenv: [{ sh: 'echo A=1; echo not a line' }]\ntasks:\n  a: echo\n")
    let malformed = try project.run("a")
    #expect(malformed.status == 2)
    #expect(
      malformed.stderr.contains(
        "tasks.yml:1:10: error: what dotenv command 'echo A=1; echo not a line' printed, line 2:"),
      "\(malformed.stderr)")
    for (entry, message) in [
      ("{ path: a.env, sh: 'echo A=1' }", "takes 'path' or 'sh', not both"),
      ("{ sh: 'echo A=1', optional: true }", "'optional' is for a file"),
      ("{ override: true }", "needs a 'path' (a file) or 'sh'"),
    ] {
      try project.write("tasks.yml", "dotenv: [\(entry)]\ntasks:\n  a: echo\n")
      let output = try project.run("a")
      #expect(output.status == 2)
      #expect(output.stderr.contains("tasks.yml:1:10: error:") && output.stderr.contains(message), "\(output.stderr)")
    }
  }

  /// A file param's `sh:` default sees the `.env` values; a task's param's also the file's `env`
  /// and the task's own.
  @Test func anShDefaultSeesTheEnvFilesAndTheFilesEnv() throws {
    let project = try TaskFileProject(
      """
      dotenv: [.env]
      env: { GREETING: "hello ${NAME}" }
      params:
        WHO: { default: { sh: 'echo "$NAME"' } }
      tasks:
        show:
          env: { PUNCT: "!" }
          params:
            SAID: { default: { sh: 'echo "$GREETING from $WHO$PUNCT"' } }
          run: echo "$SAID"
      """)
    defer { project.remove() }
    try project.write(".env", "NAME=dotenv-name\n")
    let output = try project.run("show")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("show | hello dotenv-name from dotenv-name!\n"), "\(output.stdout)")
  }

  /// `${NAME}` in a param's default reads the `.env` values, then runner's environment; `$${`
  /// is a literal `${`.
  @Test func aDefaultReadsTheEnvironment() throws {
    let project = try TaskFileProject(
      """
      dotenv: [.env]
      params:
        REGION: { default: "${REGION}" }
        TAG: "${FROM_FILE}-${UNSET_HERE}-$${LITERAL}"
        SHELLISH: "${{ params.REGION }}/${SUB:-x}"
      tasks:
        show: echo "$REGION $TAG $SHELLISH"
      """)
    defer { project.remove() }
    try project.write(".env", "FROM_FILE=dotenv\n")
    let output = try project.run(["show"], environment: ["REGION": "eu-west-1"])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("show | eu-west-1 dotenv--${LITERAL} eu-west-1/${SUB:-x}\n"), "\(output.stdout)")
    let overridden = try project.run(["show", "REGION=us"], environment: ["REGION": "eu-west-1"])
    #expect(overridden.stdout.contains("show | us dotenv-"), "\(overridden.stdout)")
  }

  /// What a `.env` command prints can change between runs: a run never takes the last one's
  /// record as its own (the no-op path) without running it.
  @Test func aDotenvCommandRunsEveryRun() throws {
    let project = try TaskFileProject(
      """
      dotenv: [{ sh: "sed 's/^/REV=/' rev.txt" }]
      tasks:
        build: { sources: [main.c], outputs: [out.txt], run: 'echo "$REV" > out.txt' }
      """)
    defer { project.remove() }
    try project.write("main.c", "int main;\n")
    try project.write("rev.txt", "one\n")
    #expect(try project.run("build").status == 0)
    #expect(project.read("out.txt") == "one\n")
    try project.write("rev.txt", "two\n")
    let again = try project.run("build")
    #expect(again.status == 0, "\(again.stderr)")
    #expect(project.read("out.txt") == "two\n", "\(again.stdout)")
  }
}
