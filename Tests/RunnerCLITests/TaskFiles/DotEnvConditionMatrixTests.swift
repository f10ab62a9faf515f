import Foundation
import Testing

/// `.env` files and their precedence, `if:` conditions and `matrix:`.
@Suite struct DotEnvConditionMatrixTests {
  @Test func dotenvPrecedenceFollowsTheDocumentedOrder() throws {
    let project = try TaskFileProject(
      """
      dotenv: [.env, { path: .env.local, optional: true }, { path: .env.missing, optional: true }]
      env: { FROM_ENV: file-env }
      tasks:
        show:
          dotenv: [task.env]
          env: { TASK: task-env }
          run: 'echo "$A|$B|$C|$FROM_ENV|$SHELLVAR|$TASK|$QUOTED"'
      """)
    defer { project.remove() }
    try project.write(
      ".env",
      "# comment\nexport A=from-dotenv\nB='single ${A}'\nC=\"c\\tc\" # trailing\nFROM_ENV=dotenv-loses\nSHELLVAR=dotenv-loses\n"
    )
    try project.write(".env.local", "A=local-wins\n")
    try project.write("task.env", "B=task-dotenv\nTASK=task-dotenv-loses\nQUOTED=\"${A}-x\"\n")
    let output = try project.run("show", environment: ["SHELLVAR": "shell"])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(
      output.stdout.contains("show | local-wins|task-dotenv|c\tc|file-env|shell|task-env|local-wins-x"),
      "\(output.stdout)")
  }

  /// `NAME: null` removes a variable from what the task inherits (runner's environment, the
  /// file's `env`); `~` and an empty value still set it to the empty string.
  @Test func aNullEnvValueUnsetsTheVariable() throws {
    let project = try TaskFileProject(
      """
      env: { FROM_FILE: file, GONE_TOO: null }
      tasks:
        show:
          env: { INHERITED: null, FROM_FILE: null, EMPTY: ~ }
          run: 'for v in INHERITED FROM_FILE GONE_TOO EMPTY; do eval "echo $v=\\${$v-unset}"; done'
      """)
    defer { project.remove() }
    let output = try project.run(["show"], environment: ["INHERITED": "x", "GONE_TOO": "y"])
    #expect(output.status == 0, "\(output.stderr)")
    for line in ["INHERITED=unset", "FROM_FILE=unset", "GONE_TOO=unset", "EMPTY="] {
      #expect(output.stdout.contains("show | \(line)\n"), "\(line): \(output.stdout)")
    }
    let described = try project.run("--describe", "show")
    #expect(described.stdout.contains("INHERITED unset  tasks.yml:4:23 (env: null)"), "\(described.stdout)")
    #expect(try project.run("-n", "show").stdout.contains("env FROM_FILE unset"))
  }

  @Test func aMissingDotenvIsAnErrorAtItsLine() throws {
    let project = try TaskFileProject("tasks:\n  a:\n    dotenv: [nope.env]\n    run: echo\n")
    defer { project.remove() }
    let output = try project.run("a")
    #expect(output.status == 2)
    #expect(
      output.stderr.contains("tasks.yml:3:14: error: dotenv file 'nope.env' not found (mark it optional: "),
      "\(output.stderr)")
    try project.write("bad.env", "A=1\nnot a line\n")
    try project.write("tasks.yml", "dotenv: bad.env\ntasks:\n  a: echo\n")
    let bad = try project.run("a")
    #expect(bad.status == 2)
    #expect(bad.stderr.contains("bad.env:2:"), "\(bad.stderr)")
  }

  @Test func describeSaysWhereEachVariableComesFrom() throws {
    let project = try TaskFileProject(
      "dotenv: [.env]\nparams: {mode: debug}\ntasks:\n  a: {env: {X: '1'}, run: echo}\n")
    defer { project.remove() }
    try project.write(".env", "Y=2\nHOME=ignored\n")
    let output = try project.run("--describe", "a", "mode=release")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("X=1"), "\(output.stdout)")
    #expect(output.stdout.contains("tasks.yml:4:16 (env)"), "\(output.stdout)")
    #expect(output.stdout.contains(".env:1 (dotenv)"), "\(output.stdout)")
    #expect(output.stdout.contains("mode=release"), "\(output.stdout)")
    #expect(output.stdout.contains("(the command line)"), "\(output.stdout)")
    #expect(output.stdout.contains("HOME: .env:2 not used: runner's environment sets it"), "\(output.stdout)")
  }

  @Test func falseConditionsSkipAndDependentsRun() throws {
    let project = try TaskFileProject(
      """
      params: {mode: debug}
      tasks:
        check: 'echo changed=false >> $RUNNER_OUTPUT'
        gated:
          deps: [check]
          if: ${{ deps.check.outputs.changed == 'true' && params.mode != 'debug' }}
          run: echo gated ran
        present: {if: test -f here, run: echo present ran}
        absent: {if: test -f nowhere, run: echo absent ran}
        linux: {if: "${{ runner.os == 'linux' }}", run: echo on linux}
        after: {deps: [gated, absent], run: echo after ran}
      """)
    defer { project.remove() }
    try project.write("here", "")
    let output = try project.run("--events", "events.jsonl", "after", "present", "linux")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(!output.stdout.contains("gated ran"))
    #expect(!output.stdout.contains("absent ran"))
    #expect(output.stdout.contains("present ran"))
    #expect(output.stdout.contains("after ran"))
    #expect(output.stdout.contains("on linux"))
    #expect(output.stdout.contains("↷ gated skipped (if: ${{ deps.check.outputs.changed == 'true'"))
    let events = project.read("events.jsonl") ?? ""
    #expect(
      events.contains(
        "\"task\":\"absent\",\"event\":\"state\",\"state\":\"skipped\",\"attempt\":1,\"reason\":\"condition\""),
      "\(events)")
  }

  @Test func aMatrixIsOneNodePerCombination() throws {
    let project = try TaskFileProject(
      """
      tasks:
        test:
          matrix:
            py: ["3.11", "3.12"]
            os: [linux, mac]
            exclude: [{py: "3.11", os: mac}]
            include: [{py: "3.12", os: mac, extra: yes}, {py: "3.13", os: linux}]
          env: { PY: "${{ matrix.py }}", EXTRA: "${{ matrix.extra }}" }
          run: 'echo "py$PY on ${{ matrix.os }}" >/dev/null; echo "py$PY$EXTRA"'
        all: {deps: [test]}
      """)
    defer { project.remove() }
    let bad = try project.run("all")
    #expect(bad.status == 2)
    #expect(bad.stderr.contains("'${{ }}' expressions may appear only in 'env' values"))
    try project.write(
      "tasks.yml",
      (project.read("tasks.yml") ?? "").replacingOccurrences(
        of: "'echo \"py$PY on ${{ matrix.os }}\" >/dev/null; echo \"py$PY$EXTRA\"'", with: "'echo \"py$PY$EXTRA\"'"))
    let output = try project.run("all")
    #expect(output.status == 0, "\(output.stderr)")
    let lines = output.stdout.split(separator: "\n").map { $0.replacingOccurrences(of: " ", with: "") }
    for line in [
      "test[py=3.11,os=linux]|py3.11", "test[py=3.12,os=linux]|py3.12", "test[py=3.12,os=mac,ext…|py3.12yes",
      "test[py=3.13,os=linux]|py3.13",
    ] {
      #expect(lines.contains(line), "\(output.stdout)")
    }
    #expect(!output.stdout.contains("py=3.11,os=mac"))
    let list = try project.run("--list")
    #expect(list.stdout.contains("test"), "\(list.stdout)")
    #expect(!list.stdout.contains("test[py"), "\(list.stdout)")
  }
}
