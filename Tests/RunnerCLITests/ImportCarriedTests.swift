import Foundation
import Testing

/// Constructs `runner import` carries over (issue 36's third point), each run beside the tool
/// on the same file where the tool is installed: just's modules, go-task's loops over task
/// names and command conditions; and calls it cannot carry, which fail loudly.
struct ImportCarriedTests {
  /// A call whose task name holds the loop's item (`task: build-{{.ITEM}}`) becomes one call
  /// per item, the name written in; `deps:` with `for:` one dependency per item (runner's
  /// dependencies have no `for:`), the item written into their vars. (The file did not load.)
  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed (pip install go-task-bin)"))
  func goTaskLoopsOverTaskNamesImportAsOneCallPerItem() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      tasks:
        default:
          cmds:
            - for: [a, b]
              task: part-{{.ITEM}}
              vars: { WHO: 'x{{.ITEM}}' }
            - 'echo "step: end"'
        together:
          deps:
            - for: [a]
              task: part-{{.ITEM}}
              vars: { WHO: 'dep-{{.ITEM}}' }
          cmds:
            - 'echo "step: together"'
        part-a: { cmds: ['echo "step: a {{.WHO}}"'] }
        part-b: { cmds: ['echo "step: b {{.WHO}}"'] }

      """)
    for target in ["default", "together"] {
      let original = try ImportOrderTests.steps(ImportOrderTests.task!, [target], in: project.directory)
      #expect(!original.isEmpty)
      try? FileManager.default.removeItem(at: project.directory.appendingPathComponent("tasks.yml"))
      #expect(try ImportOrderTests.runnerSteps(project, "Taskfile.yml", [target]) == original, "\(target)")
    }
  }

  /// A task name with a template other than the loop's item is reported, and the command
  /// standing for the call fails and says so.
  @Test func aCallOfATemplatedTaskNameFailsLoudly() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      vars: { KIND: a }
      tasks:
        default:
          cmds:
            - task: part-{{.KIND}}
        part-a: { cmds: ['echo a'] }

      """)
    let imported = try project.run("import", "Taskfile.yml")
    #expect(imported.status == 3, "\(imported.stderr)")
    #expect(imported.stderr.contains("Taskfile.yml:6: not carried over: task: part-{{.KIND}}"), "\(imported.stderr)")
    let ran = try project.run("default")
    #expect(ran.status == 1)
    #expect(ran.stdout.contains("not carried over: task: part-{{.KIND}}"), "\(ran.stdout)\(ran.stderr)")
  }

  /// go-task's `if:` on a command: a shell condition (its templates filled in, `eq` and `ne`
  /// among them) that skips the command, in a `for:` too; on a call it is reported and the
  /// call fails loudly (runner's calls have no condition).
  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed (pip install go-task-bin)"))
  func goTaskCommandConditionsImportAsShellConditions() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      vars:
        ENV: prod
        SHOULD_RUN: "yes"
      tasks:
        default:
          cmds:
            - cmd: 'echo "step: true"'
              if: "true"
            - cmd: 'echo "step: exit 0"'
              if: "exit 0"
            - cmd: 'echo "step: false"'
              if: "false"
            - cmd: 'echo "step: templated {{.SHOULD_RUN}}"'
              if: '[ "{{.SHOULD_RUN}}" = "yes" ]'
            - for: [a, b, c]
              cmd: 'echo "step: item {{.ITEM}}"'
              if: '[ "{{.ITEM}}" != "b" ]'
            - cmd: 'echo "step: prod"'
              if: '{{ eq .ENV "prod" }}'
            - cmd: 'echo "step: dev"'
              if: '{{ eq .ENV "dev" }}'
            - cmd: 'echo "step: not dev"'
              if: '{{ ne .ENV "dev" }}'
            - 'echo "step: end"'
        called:
          vars: { WHO: me }
          cmds:
            - task: default
              if: '[ "{{.WHO}}" = me ]'
            - task: default
              if: "false"
            - 'echo "step: after {{.WHO}}"'

      """)
    let original = try ImportOrderTests.steps(ImportOrderTests.task!, ["default"], in: project.directory)
    #expect(original.count == 8, "\(original)")
    #expect(try ImportOrderTests.runnerSteps(project, "Taskfile.yml", ["default"]) == original)
    let dev = try ImportOrderTests.steps(ImportOrderTests.task!, ["default", "ENV=dev"], in: project.directory)
    #expect(dev != original)
    #expect(ImportOrderTests.stepLines(try project.run(["-j", "1", "ENV=dev", "default"]).stdout) == dev)
    // A call with `if:` runs through an internal task with the condition, skipped or run.
    let called = try ImportOrderTests.steps(ImportOrderTests.task!, ["called"], in: project.directory)
    #expect(ImportOrderTests.stepLines(try project.run(["-j", "1", "called"]).stdout) == called)
  }

  /// A call or a dependency naming a task the import could not carry over (a wildcard task,
  /// a name with `/`) fails loudly instead of leaving a file that does not load.
  @Test func callsOfTasksNotCarriedOverFailLoudly() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      tasks:
        sub/src.txt: { cmds: ['echo made'] }
        uses-file:
          deps: [sub/src.txt]
          cmds: ['echo after']
        deploy:
          cmds:
            - echo deploying
            - task: deploy:infra
        deploy:*: { cmds: ['echo "Deploy {{index .MATCH 0}}"'] }

      """)
    let imported = try project.run("import", "Taskfile.yml")
    #expect(imported.status == 3, "\(imported.stderr)")
    #expect(imported.stderr.contains("Taskfile.yml:4: not carried over: deps: sub/src.txt"), "\(imported.stderr)")
    #expect(imported.stderr.contains("Taskfile.yml:7: not carried over: task: deploy:infra"), "\(imported.stderr)")
    let usesFile = try project.run("uses-file")
    #expect(usesFile.status == 1 && !usesFile.stdout.contains("after"), "\(usesFile.stdout)")
    #expect(usesFile.stdout.contains("not carried over: deps: sub/src.txt"), "\(usesFile.stdout)")
    let deploy = try project.run("deploy")
    #expect(deploy.status == 1 && deploy.stdout.contains("deploying"), "\(deploy.stdout)")
    #expect(deploy.stdout.contains("not carried over: task: deploy:infra"), "\(deploy.stdout)")
  }

  /// `mod NAME` becomes an include of the module's own import (the report says how to make it):
  /// `just foo::b` and `runner foo:b` run the same, in the module's directory, for a module in
  /// `foo.just` and one in `bar/justfile`; a `mod?` whose file is missing is left out, as just
  /// leaves it; a module-only justfile imports into a file of includes alone.
  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed (pip install rust-just)"))
  func justModulesImportAsIncludes() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "justfile", "mod foo\nmod bar\nmod? gone\n\nalias fb := foo::b\n\nboth: foo::b bar::c\n  @echo \"step: both\"\n")
    try project.write("foo.just", "b:\n  @echo \"step: foo b in $(basename $PWD)\"\n")
    try project.write("bar/justfile", "c:\n  @echo \"step: bar c in $(basename $PWD)\"\n")
    let imported = try project.run("import", "justfile")
    #expect(imported.status == 3, "\(imported.stderr)")
    #expect(
      imported.stderr.contains("import the included file too: runner import foo.just -o foo.tasks.yml"),
      "\(imported.stderr)")
    #expect(try project.run("import", "foo.just", "-o", "foo.tasks.yml").status == 0)
    let inBar = try BinaryRunner.run(["import", "justfile"], in: project.directory.appendingPathComponent("bar"))
    #expect(inBar.status == 0, "\(inBar.stderr)")
    for (justArguments, runnerTarget) in [(["foo::b"], "foo:b"), (["bar", "c"], "bar:c"), (["fb"], "fb")] {
      let original = try ImportOrderTests.steps(ImportOrderTests.just!, justArguments, in: project.directory)
      #expect(!original.isEmpty)
      let ran = try project.run(["-j", "1", runnerTarget])
      #expect(ran.status == 0, "\(ran.stderr)")
      #expect(ImportOrderTests.stepLines(ran.stdout) == original, "\(runnerTarget)")
    }
    // Dependencies on the modules' recipes run them (in runner, beside each other).
    let original = try ImportOrderTests.steps(ImportOrderTests.just!, ["both"], in: project.directory)
    let ran = try project.run(["-j", "1", "both"])
    #expect(Set(ImportOrderTests.stepLines(ran.stdout)) == Set(original) && original.count == 3, "\(ran.stdout)")
  }

  /// A module whose file is not there now is included where its import would be, and the
  /// report says the file is missing; runner, like just, refuses to run until it is there.
  @Test func aMissingJustModuleIsReported() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("justfile", "a:\n  echo a\n\nmod nowhere\n")
    let imported = try project.run("import", "justfile")
    #expect(imported.status == 3, "\(imported.stderr)")
    #expect(
      imported.stderr.contains(
        "justfile:4: approximate: mod nowhere: import the included file too: runner import nowhere.just -o "
          + "nowhere.tasks.yml"),
      "\(imported.stderr)")
    #expect(imported.stderr.contains("its file is not there now"), "\(imported.stderr)")
    #expect(try project.run("a").status == 2)
  }

  /// go-task's loops over a list var, a var's words (split), a matrix (written, or `ref:` to
  /// list vars), a command's output and the task's sources, and a list or map var printed or
  /// indexed: each gives what go-task gives.
  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed (pip install go-task-bin)"))
  func goTaskLoopsAndStructuredVarsImportAsGoTaskRunsThem() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("b.txt", "")
    try project.write("a.txt", "")
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      vars:
        OS_VAR: [windows, linux]
        ARCH_VAR: [amd64, arm64]
        MAP: { map: { b: 2, a: one } }
        CSV: x,y
      tasks:
        default:
          sources: ['*.txt']
          vars:
            WORDS: p q
            LISTING: { sh: printf 'm n' }
          cmds:
            - for: { matrix: { OS: { ref: .OS_VAR }, ARCH: [amd64, arm64] } }
              cmd: 'echo "step: {{.ITEM.OS}}/{{.ITEM.ARCH}}"'
            - for: { var: CSV, split: ',', as: PART }
              cmd: 'echo "step: part {{.PART}}"'
            - for: { var: WORDS }
              task: show
              vars: { WHAT: '{{.ITEM}}' }
            - for: { var: LISTING }
              cmd: 'echo "step: listed {{.ITEM}}"'
            - for: sources
              cmd: 'echo "step: source {{.ITEM}}"'
            - for: { var: ARCH_VAR }
              cmd: 'echo "step: arch {{.ITEM}}"'
            - 'echo "step: {{.OS_VAR}} {{.MAP}} {{.MAP.a}} {{index .OS_VAR 1}}"'
        show: 'echo "step: show {{.WHAT}}"'

      """)
    let original = try ImportOrderTests.steps(ImportOrderTests.task!, ["default"], in: project.directory)
    #expect(original.count == 15, "\(original)")
    #expect(try ImportOrderTests.runnerSteps(project, "Taskfile.yml", ["default"]) == original)
  }

  /// A var written as a plain mapping is refused, as go-task refuses it (a map is `map: {…}`).
  @Test func aGoTaskVarOfAnUnknownTypeIsRefused() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("Taskfile.yml", "version: '3'\nvars:\n  MAP: { b: 2 }\ntasks:\n  default: echo hi\n")
    let imported = try project.run("import", "Taskfile.yml")
    #expect(imported.status == 2)
    #expect(
      imported.stderr.contains(
        "Taskfile.yml:3: go-task refuses the file: \"b\" is not a valid variable type. Try \"sh\", \"ref\""),
      "\(imported.stderr)")
  }

  /// just's `import`: the imported files' recipes and variables join the file's (nested
  /// imports relative to their own file, each file once, the importer's definitions winning),
  /// run in the justfile's directory; what is not carried is reported at the imported file's
  /// line; a missing import is refused, a circular one too.
  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed (pip install rust-just)"))
  func justImportsJoinTheirRecipesToTheFile() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "justfile",
      """
      set allow-duplicate-recipes
      set allow-duplicate-variables
      import 'lib/a.just'
      import 'lib/a.just'

      x := 'parent'

      all: b && shared
        echo "step: all {{x}}"

      shared:
        echo "step: shared from the parent"

      """)
    try project.write(
      "lib/a.just",
      "import 'b.just'\nx := 'a'\nshared:\n  echo \"step: shared from a\"\nb: c\n  echo \"step: b in $(basename $PWD)\"\n"
    )
    try project.write("lib/b.just", "c:\n  echo \"step: c\"\nodd:\n  echo {{ blake3('x') }}\n")
    let original = try ImportOrderTests.steps(ImportOrderTests.just!, ["all"], in: project.directory)
    #expect(original.count == 4, "\(original)")
    #expect(try ImportOrderTests.runnerSteps(project, "justfile", ["all"]) == original)
    let imported = try project.run("import", "justfile", "--force")
    #expect(imported.stderr.contains("lib/b.just:4: not carried over: {{ blake3('x') }}"), "\(imported.stderr)")
    #expect(project.read("tasks.yml")?.contains("default: [all]") == true)
    try project.write("lib/b.just", "import '../justfile'\n")
    let circular = try project.run("import", "justfile", "--force")
    #expect(circular.status == 2)
    #expect(circular.stderr.contains("is circular"), "\(circular.stderr)")
    try project.write("justfile", "import 'nowhere.just'\nfoo:\n")
    let missing = try project.run("import", "justfile", "--force")
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("justfile:1: just refuses the file: could not find source file for import"))
  }

  /// Found in review: a matrix item printed whole is Go's map; a task's var hides a file's of
  /// another kind; a call's condition runs in the caller's `dir`; two conditional calls on one
  /// line each get their own task.
  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed (pip install go-task-bin)"))
  func goTaskReviewFindingsGiveWhatGoTaskGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("sub/a.txt", "")
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      vars:
        X: [a, b]
      tasks:
        default:
          dir: sub
          vars: { X: hello }
          cmds:
            - for: { matrix: { OS: [linux] } }
              cmd: 'echo "step: {{.ITEM}}"'
            - 'echo "step: {{.X}}"'
            - task: show
              if: '[ -e a.txt ]'
            - { task: again, if: 'true' }
            - { task: never, if: 'false' }
        show: 'echo "step: shown"'
        again: 'echo "step: again"'
        never: 'echo "step: never"'

      """)
    let original = try ImportOrderTests.steps(ImportOrderTests.task!, ["default"], in: project.directory)
    #expect(original == ["step: map[OS:linux]", "step: hello", "step: shown", "step: again"], "\(original)")
    #expect(try ImportOrderTests.runnerSteps(project, "Taskfile.yml", ["default"]) == original)
  }

  /// go-task runs a task at each call (`run: always`); runner once per set of params: a task
  /// called twice with the same vars is reported, unless it says `run: once`.
  @Test func aTaskCalledTwiceIsReported() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    let taskfile = """
      version: '3'
      tasks:
        setup: echo setup
        once: { run: once, cmds: [echo once] }
        a: { deps: [setup, once], cmds: [echo a] }
        b: { deps: [setup, once], cmds: [echo b] }

      """
    try project.write("Taskfile.yml", taskfile)
    let imported = try project.run("import", "Taskfile.yml", "-o", "-")
    #expect(imported.stderr.contains("Taskfile.yml:3: approximate: task: setup: called 2 times"), "\(imported.stderr)")
    #expect(!imported.stderr.contains("task: once: called"))
  }
}
