import Foundation
import Testing

/// go-task's vars and env through `runner import`, run beside go-task: vars spliced into
/// quotes, `sh:` vars reading the file's params, `env` a command computes, a var named like
/// an env entry, and a `dir` go-task makes.
struct ImportGoTaskVarsTests {
  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed (pip install go-task-bin)"))
  func goTaskVarsAndEnvGiveWhatGoTaskGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      vars:
        A: a
        B: '{{.A}}b'
        ONE: { sh: echo 1 }
        TWO: { sh: 'echo "{{.ONE}}2"' }
        SAME: { sh: echo from-var }
      env:
        COMPUTED: { sh: echo computed }
        SAME: from-file
      tasks:
        default:
          cmds:
            - "echo 'step: {{.B}}c {{.TWO}}'"
            - 'echo "step: $COMPUTED $SAME {{.SAME}}"'
            - task: local
            - task: made
        local:
          env:
            SAME: local
          cmds:
            - 'echo "step: local $SAME"'
        made:
          dir: 'out/{{.A}}'
          cmds:
            - 'echo "step: in $(basename "$PWD")"'

      """)
    let original = try ImportOrderTests.steps(ImportOrderTests.task!, ["default"], in: project.directory)
    #expect(
      original == ["step: abc 12", "step: computed from-file from-var", "step: local local", "step: in a"],
      "\(original)")
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("out"))
    #expect(try ImportOrderTests.runnerSteps(project, "Taskfile.yml", ["default"]) == original)
  }

  /// The file's env reading a command-valued var (`BAZ: '{{.BAZ}}'`) whose name a task's env
  /// also sets: the file's value is the command's output, the task's own wins there.
  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed (pip install go-task-bin)"))
  func goTaskEnvReadingACommandVarGivesWhatGoTaskGives() throws {
    try Self.goTaskAndTheImportAgree(
      """
      version: '3'
      vars:
        BAZ: { sh: echo baz }
      env:
        BAZ: '{{.BAZ}}'
      tasks:
        default:
          cmds:
            - task: global
            - task: own
        global: 'echo "step: $BAZ"'
        own:
          env: { BAZ: 1.1 }
          cmds: ['echo "step: $BAZ"']

      """,
      printing: ["step: baz", "step: 1.1"])
  }

  /// A command's `timeout` (go-task stops it; with `ignore_error` the task goes on), an empty
  /// `deps` entry, `{{splitArgs .CLI_ARGS | len}}` and `{{absPath …}}`.
  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed (pip install go-task-bin)"))
  func goTaskTimeoutsAndPathFunctionsGiveWhatGoTaskGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      vars:
        REL: sub/../other
      tasks:
        default:
          deps:
            -
            - task: dep
          cmds:
            - cmd: sleep 10
              timeout: 200ms
              ignore_error: true
            - 'echo "step: {{splitArgs .CLI_ARGS | len}} $(basename {{absPath "a/../b"}}) $(basename {{absPath .REL}})"'
            - "echo 'step: {{splitArgs .CLI_ARGS | len}} in quotes'"
        dep: 'echo "step: dep"'
        stuck:
          cmds:
            - cmd: sleep 10
              timeout: 1.5s
            - 'echo "step: not reached"'

      """)
    let original = try ImportOrderTests.outcome(
      ImportOrderTests.task!, ["default", "--", "x", "y"], in: project.directory)
    #expect(original.steps == ["step: dep", "step: 2 b other", "step: 2 in quotes"], "\(original)")
    let imported = try project.run("import", "Taskfile.yml")
    #expect(imported.status == 3, "\(imported.stderr)")
    let ran = try project.run("-j1", "default", "--", "x", "y")
    #expect(ran.status == 0, "\(ran.stderr)")
    #expect(ImportOrderTests.stepLines(ran.stdout) == original.steps, "\(ran.stdout)")
    let stuck = try ImportOrderTests.outcome(ImportOrderTests.task!, ["stuck"], in: project.directory)
    #expect(!stuck.succeeded && stuck.steps.isEmpty)
    let runnerStuck = try project.run("stuck")
    #expect(runnerStuck.status == 1 && ImportOrderTests.stepLines(runnerStuck.stdout).isEmpty, "\(runnerStuck.stdout)")
  }

  /// Lists and maps the file writes: templates inside their values, and `ref:` picking one
  /// text out of them for a call (`(index .MAP.children 0).name`).
  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed (pip install go-task-bin)"))
  func goTaskStructuredValuesGiveWhatGoTaskGives() throws {
    try Self.goTaskAndTheImportAgree(
      """
      version: '3'
      vars:
        LIST: [1, 2, 3]
      tasks:
        default:
          vars:
            FOO: foo
            BOTH: ["{{.FOO}}", "bar"]
            MAP:
              map: { children: [{ name: Bob }, { name: Ann }] }
          cmds:
            - 'echo "step: {{index .BOTH 0}} {{index .BOTH 1}}"'
            - task: show
              vars: { VAR: { ref: (index .MAP.children 1).name } }
            - task: show
              vars: { VAR: { ref: index .LIST 2 } }
        show: 'echo "step: {{.VAR}}"'

      """,
      printing: ["step: foo bar", "step: Ann", "step: 3"])
  }

  /// `{{.TIMESTAMP}}` (and `.Unix`) of a `method: timestamp` task is the newest time of its
  /// sources, as Go prints it; a method that does not set a variable leaves it empty.
  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed (pip install go-task-bin)"))
  func goTaskFingerprintVariablesGiveWhatGoTaskGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("a.txt", "a\n")
    try project.write("b.txt", "b\n")
    // A fraction of a second, as a file system keeps it: Go prints it without trailing zeros.
    _ = try project.shell("touch -d @1787319113.25 a.txt && touch -d @1577934245 b.txt")
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      method: none
      tasks:
        default:
          cmds: [task: stamp, task: none, task: plain]
        stamp:
          method: timestamp
          sources: ['*.txt']
          cmds:
            - "echo 'step: {{.TIMESTAMP}} {{.TIMESTAMP.Unix}} [{{.CHECKSUM}}]'"
        none:
          sources: [a.txt]
          cmds: ['echo "step: [{{.CHECKSUM}}] [{{.TIMESTAMP}}]"']
        plain:
          method: checksum
          cmds: ['echo "step: [{{.CHECKSUM}}]"']
      """)
    let original = try ImportOrderTests.steps(ImportOrderTests.task!, ["default"], in: project.directory)
    // The time is printed in the local zone: only the seconds' fraction and the Unix value are fixed.
    #expect(original.count == 3 && original[0].contains(":53.25 ") && original[0].hasSuffix(" 1787319113 []"))
    #expect(original.dropFirst() == ["step: [] []", "step: []"], "\(original)")
    #expect(try ImportOrderTests.runnerSteps(project, "Taskfile.yml", ["default"]) == original)
  }

  /// go-task's `for: sources`, `for: generates` and `for:` over a `sh:` var on `deps` become
  /// runner's `for:`, and run the same commands.
  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed"))
  func goTaskLoopsOnDependenciesImportAsRunnersFor() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    for name in ["a.txt", "b.txt"] { try project.write(name, "\(name)\n") }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      tasks:
        show: { cmds: ['echo "step: {{.F}}"'] }
        default:
          sources: ['*.txt']
          generates: [a.txt]
          vars:
            WORDS: { sh: 'echo one two' }
          deps:
            - { for: sources, task: show, vars: { F: 'src {{.ITEM}}' } }
            - { for: generates, task: show, vars: { F: 'gen {{.ITEM}}' } }
            - { for: { var: WORDS, as: W }, task: show, vars: { F: 'word {{.W}}' } }
      """)
    let original = try ImportOrderTests.steps(ImportOrderTests.task!, ["default"], in: project.directory)
    #expect(
      original.sorted() == [
        "step: gen a.txt", "step: src a.txt", "step: src b.txt", "step: word one", "step: word two",
      ], "\(original)")
    #expect(try ImportOrderTests.runnerSteps(project, "Taskfile.yml", ["default"]).sorted() == original.sorted())
    let written = project.read("tasks.yml") ?? ""
    #expect(written.contains("for: { files: [\"*.txt\"] }"), "\(written)")
    #expect(written.contains("for: { sh: echo one two }"), "\(written)")
  }

  /// A matrix axis split from a var's value (`ref: splitList "," .CSV`) loops over its parts.
  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed (pip install go-task-bin)"))
  func aMatrixAxisSplitFromAVarGivesWhatGoTaskGives() throws {
    try Self.goTaskAndTheImportAgree(
      """
      version: '3'
      vars:
        CSV: 'linux,darwin'
        ARCHES: [amd64, arm64]
      tasks:
        default:
          cmds:
            - for: { matrix: { OS: { ref: 'splitList "," .CSV' }, ARCH: { ref: .ARCHES } } }
              cmd: 'echo "step: {{.ITEM.OS}}/{{.ITEM.ARCH}}"'

      """,
      printing: ["step: linux/amd64", "step: linux/arm64", "step: darwin/amd64", "step: darwin/arm64"])
  }

  /// go-task runs `taskfile`'s default task and prints `printing` (its `step:` lines); the
  /// import, run by runner, prints the same.
  static func goTaskAndTheImportAgree(_ taskfile: String, printing expected: [String]) throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("Taskfile.yml", taskfile)
    let original = try ImportOrderTests.steps(ImportOrderTests.task!, ["default"], in: project.directory)
    #expect(original == expected, "\(original)")
    #expect(try ImportOrderTests.runnerSteps(project, "Taskfile.yml", ["default"]) == original)
  }
}
