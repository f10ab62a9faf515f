import Foundation
import Testing

/// go-task's includes through `runner import`, each run beside go-task on the same files:
/// include `vars:` as runner's include `with:`, where included tasks run, include aliases, a
/// Taskfile of includes alone; and go-task's own variables, `secret` vars and `requires`.
struct ImportIncludesTests {
  /// Imports `name` in `project` and each file its report says to import too.
  static func importWithIncludes(_ project: TaskFileProject, _ name: String) throws -> String {
    let imported = try project.run("import", name)
    #expect(imported.status == 0 || imported.status == 3, "\(imported.stderr)")
    var report = imported.stderr
    for line in imported.stderr.split(separator: "\n") {
      guard let start = line.firstRange(of: "runner import ") else { continue }
      let words = line[start.upperBound...].split(separator: " ")
      guard words.count >= 3, words[1] == "-o" else { continue }
      let source = String(words[0])
      let directory = source.contains("/") ? String(source[..<source.lastIndex(of: "/")!]) : "."
      let file = String(source.split(separator: "/").last!)
      let output = String(words[2]).dropFirst(directory == "." ? 0 : directory.count + 1)
      let included = try BinaryRunner.run(
        ["import", file, "-o", String(output), "--force"], in: project.directory.appendingPathComponent(directory))
      #expect(included.status == 0 || included.status == 3, "\(included.stderr)")
      report += included.stderr
    }
    return report
  }

  /// An include's vars reach a var the included file writes `{{.NAME | default …}}` (runner's
  /// include `with:`) and not one it sets outright; included tasks run where the including
  /// file's do unless the include sets `dir`; an include's alias names the same tasks; a
  /// Taskfile of includes alone imports.
  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed (pip install go-task-bin)"))
  func goTaskIncludesGiveWhatGoTaskGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      vars:
        LIB: lib
      includes:
        foo: { taskfile: '{{.LIB}}/Taskfile.lib.yml', vars: { WHO: foo, FIXED: foo }, aliases: [f] }
        bar: { taskfile: lib/Taskfile.lib.yml, vars: { WHO: bar }, dir: lib }
        plain: ./lib/Taskfile.lib.yml
      tasks:
        default:
          cmds:
            - task: foo:greet
            - task: bar:greet
            - task: plain:greet

      """)
    try project.write(
      "lib/Taskfile.lib.yml",
      """
      version: '3'
      vars:
        WHO: '{{.WHO | default "world"}}'
        FIXED: lib
      tasks:
        greet: 'echo "step: hello {{.WHO}} {{.FIXED}} in $(basename "$PWD")"'

      """)
    try project.write("only/Taskfile.yml", "version: '3'\nincludes:\n  lib: ../lib/Taskfile.lib.yml\n")
    let original = try ImportOrderTests.steps(ImportOrderTests.task!, ["default"], in: project.directory)
    #expect(original.count == 3, "\(original)")
    let aliased = try ImportOrderTests.steps(ImportOrderTests.task!, ["f:greet"], in: project.directory)
    #expect(aliased.count == 1, "\(aliased)")
    let report = try Self.importWithIncludes(project, "Taskfile.yml")
    #expect(!report.contains("not carried over: includes"), "\(report)")
    #expect(
      project.read("tasks.yml")?.contains(
        "foo: { path: lib/Taskfile.lib.tasks.yml, dir: ., with: { WHO: foo } }") == true,
      "\(project.read("tasks.yml") ?? "")")
    let ran = try project.run(["-j", "1", "default"])
    #expect(ran.status == 0, "\(ran.stderr)")
    #expect(ImportOrderTests.stepLines(ran.stdout) == original)
    // The alias is the same include: the same tasks under a second name.
    let ranAlias = try project.run(["f:greet"])
    #expect(ImportOrderTests.stepLines(ranAlias.stdout) == aliased, "\(ranAlias.stdout)\(ranAlias.stderr)")

    let only = project.directory.appendingPathComponent("only")
    let inOnly = try BinaryRunner.run(["import", "Taskfile.yml"], in: only)
    #expect(inOnly.status == 3, "\(inOnly.stderr)")
    #expect(
      try ImportOrderTests.steps(ImportOrderTests.task!, ["lib:greet"], in: only)
        == ["step: hello world lib in only"])
    let onlyRan = try BinaryRunner.run(["lib:greet"], in: only)
    #expect(ImportOrderTests.stepLines(onlyRan.stdout) == ["step: hello world lib in only"], "\(onlyRan.stderr)")
  }

  /// A var nothing defines reads the environment, and a caller's vars or the command line set
  /// it; a nested include's `dir` is relative to the file that declares it; an included file
  /// may call the root file's tasks (`:name`); a root task named like an include wins over the
  /// include's default.
  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed (pip install go-task-bin)"))
  func goTaskNestedIncludesAndUndefinedVarsGiveWhatGoTaskGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      includes:
        svc: ./svc
        docs: docs/Taskfile.yml
      tasks:
        docs: 'echo "step: root docs"'
        root-task: 'echo "step: root task"'
        default:
          cmds:
            - task: svc:start
            - task: docs
            - task: docs:call-root

      """)
    try project.write(
      "svc/Taskfile.yml",
      """
      version: '3'
      includes:
        lib: { taskfile: ../lib/Taskfile.yml, dir: ../lib }
      tasks:
        start:
          cmds:
            - task: lib:login
              vars: { SERVER: fubar }
            - task: lib:login

      """)
    try project.write(
      "lib/Taskfile.yml",
      "version: '3'\ntasks:\n  login: 'echo \"step: login {{.SERVER}} in $(basename \"$PWD\")\"'\n")
    try project.write(
      "docs/Taskfile.yml",
      "version: '3'\ntasks:\n  default: 'echo \"step: docs default\"'\n  call-root: { cmds: [{ task: ':root-task' }] }\n"
    )
    for (arguments, environment) in [(["default"], ["SERVER": "from-env"]), (["svc:lib:login", "SERVER=cli"], [:])] {
      try? FileManager.default.removeItem(at: project.directory.appendingPathComponent("tasks.yml"))
      let original = try ImportOrderTests.steps(
        "/usr/bin/env", environment.map { "\($0)=\($1)" } + [ImportOrderTests.task!] + arguments,
        in: project.directory)
      let expected =
        arguments == ["default"]
        ? ["step: login fubar in lib", "step: login from-env in lib", "step: root docs", "step: root task"]
        : ["step: login cli in lib"]
      #expect(original == expected)
      let report = try Self.importWithIncludes(project, "Taskfile.yml")
      _ = try BinaryRunner.run(
        ["import", "Taskfile.yml", "--force"], in: project.directory.appendingPathComponent("svc"))
      _ = try BinaryRunner.run(
        ["import", "Taskfile.yml", "--force"], in: project.directory.appendingPathComponent("lib"))
      let ran = try project.run(["-j", "1"] + arguments, environment: environment)
      #expect(ran.status == 0, "\(ran.stderr)\(report)")
      #expect(ImportOrderTests.stepLines(ran.stdout) == original, "\(ran.stdout)")
    }
  }

  /// An included task called twice with the same vars, by its include's name and an alias of
  /// the include, runs once in runner (go-task runs it at each call): reported.
  @Test func anIncludedTaskCalledTwiceThroughAnAliasIsReported() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("lib/Taskfile.yml", "version: '3'\ntasks:\n  greet: echo hi\n")
    try project.write(
      "Taskfile.yml",
      "version: '3'\nincludes:\n  foo: { taskfile: lib/Taskfile.yml, aliases: [f] }\ntasks:\n  default:\n"
        + "    cmds:\n      - task: foo:greet\n      - task: f:greet\n")
    let imported = try project.run("import", "Taskfile.yml")
    #expect(imported.status == 3, "\(imported.stderr)")
    #expect(
      imported.stderr.contains(
        "Taskfile.yml:5: approximate: task: foo:greet: called 2 times with the same vars (an include's alias names "
          + "the same tasks)"),
      "\(imported.stderr)")
    #expect(!imported.stderr.contains("aliases: each alias"), "\(imported.stderr)")
  }

  /// An include's var the included file does not declare is reported, never passed silently.
  @Test func anIncludeVarTheFileDoesNotDeclareIsReported() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "Taskfile.yml", "version: '3'\nincludes:\n  lib: { taskfile: lib.yml, vars: { NEW: x } }\ntasks:\n  a: echo a\n")
    try project.write("lib.yml", "version: '3'\ntasks:\n  b: echo {{.NEW}}\n")
    let imported = try project.run("import", "Taskfile.yml")
    #expect(imported.status == 3)
    #expect(
      imported.stderr.contains(
        "Taskfile.yml:3: not carried over: includes: vars: NEW: the included file does not declare it"),
      "\(imported.stderr)")
  }

  /// `secret` vars, `requires` of a var the task defines and of an `enum` (runner's choices),
  /// go-task's TASKFILE, TASK_DIR and ALIAS, and an alias two tasks share.
  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed (pip install go-task-bin)"))
  func goTaskSecretsRequiresAndOwnVariablesGiveWhatGoTaskGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("sub/.keep", "")
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      vars:
        KEY: { secret: true, value: k1 }
        ENVS: [dev, prod]
      tasks:
        default:
          aliases: [d, x]
          vars:
            NAME: World
          requires:
            vars: [NAME, KEY]
          cmds:
            - 'echo "step: {{.NAME}} {{.KEY}} {{.ALIAS}} $(basename {{.TASKFILE}})"'
            - task: where
        where:
          aliases: [x]
          dir: sub
          cmds:
            - 'echo "step: in $(basename {{.TASK_DIR}})"'
        deploy:
          requires:
            vars: [{ name: ENV, enum: { ref: .ENVS } }]
          cmds:
            - 'echo "step: deploy {{.ENV}}"'

      """)
    let original = try ImportOrderTests.steps(ImportOrderTests.task!, ["default"], in: project.directory)
    #expect(original == ["step: World k1 default Taskfile.yml", "step: in sub"])
    #expect(try ImportOrderTests.runnerSteps(project, "Taskfile.yml", ["default"]) == original)
    let tasks = project.read("tasks.yml") ?? ""
    #expect(tasks.contains("ENV: { required: true, choices: [dev, prod] }"), "\(tasks)")
    #expect(try project.run("deploy", "ENV=prod").stdout.contains("step: deploy prod"))
    #expect(try project.run("deploy", "ENV=test").status == 2)
  }

  /// just's modules: an alias of a module, `mod?` whose file is absent giving way to another
  /// `mod` of the name, a module's variable set with `foo::x=b` (runner's `foo:x=b`), and a
  /// dependency on a module's recipe through `mod?`.
  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed (pip install rust-just)"))
  func justModulesGiveWhatJustGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "justfile",
      "mod? foo\nmod? foo 'gone.just'\nmod? opt\n\nalias f := foo\n\nbuild: opt::setup\n  @echo \"step: build\"\n")
    try project.write("foo.just", "x := 'a'\n\nbar:\n  @echo \"step: bar {{x}}\"\n")
    try project.write("opt.just", "setup:\n  @echo \"step: setup\"\n")
    let report = try Self.importWithIncludes(project, "justfile")
    #expect(!report.contains(": not carried over:"), "\(report)")
    for (justArguments, runnerArguments) in [
      (["foo::bar"], ["foo:bar"]), (["f::bar"], ["f:bar"]), (["foo::x=b", "foo::bar"], ["foo:x=b", "foo:bar"]),
      (["build"], ["-j1", "build"]),
    ] {
      let original = try ImportOrderTests.steps(ImportOrderTests.just!, justArguments, in: project.directory)
      #expect(!original.isEmpty, "\(justArguments)")
      let ran = try project.run(runnerArguments)
      #expect(ran.status == 0, "\(ran.stderr)")
      #expect(ImportOrderTests.stepLines(ran.stdout) == original, "\(runnerArguments)")
    }
  }
}
