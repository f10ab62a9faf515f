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
