import Foundation
import Testing

/// The same file run by its own tool and, imported, by runner (both at one job at a time):
/// the commands' output lines come in the same order. The files' commands only print, so
/// both tools really run them. make comes with the system; just and go-task are found on
/// PATH or through RUNNER_TEST_JUST / RUNNER_TEST_TASK (`.ci/run` installs them from PyPI).
@Suite struct ImportOrderTests {
  static func tool(_ name: String, variable: String) -> String? {
    if let named = ProcessInfo.processInfo.environment[variable], FileManager.default.isExecutableFile(atPath: named) {
      return named
    }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  static let make = tool("make", variable: "RUNNER_TEST_MAKE")
  static let just = tool("just", variable: "RUNNER_TEST_JUST")
  static let task = tool("task", variable: "RUNNER_TEST_TASK")

  /// Runs `executable` in `directory`, its stdout discarded: its exit status and stderr.
  static func run(_ executable: String, _ arguments: [String], in directory: URL) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = directory
    let err = Pipe()
    process.standardError = err
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
  }

  /// Runs `executable` in `directory`; its stdout's `step:` lines.
  static func steps(_ executable: String, _ arguments: [String], in directory: URL) throws -> [String] {
    try outcome(executable, arguments, in: directory).steps
  }

  /// Runs `executable` in `directory`: its stdout's `step:` lines, and whether it exited 0.
  static func outcome(_ executable: String, _ arguments: [String], in directory: URL) throws -> (
    steps: [String], succeeded: Bool
  ) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = directory
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (stepLines(text), process.terminationStatus == 0)
  }

  /// `step:` lines, without runner's `task | ` prefix.
  static func stepLines(_ text: String) -> [String] {
    text.split(separator: "\n").compactMap { line in
      guard let start = line.firstRange(of: "step:") else { return nil }
      return String(line[start.lowerBound...])
    }
  }

  /// Imports `name` from `project` and runs `target` with runner at -j1.
  static func runnerSteps(_ project: TaskFileProject, _ name: String, _ target: [String]) throws -> [String] {
    let imported = try project.run("import", name)
    #expect(imported.status == 0 || imported.status == 3, "\(imported.stderr)")
    let ran = try project.run(["-j", "1"] + target)
    #expect(ran.status == 0, "\(ran.stderr)\n\(project.read("tasks.yml") ?? "")")
    return stepLines(ran.stdout)
  }

  @Test(.enabled(if: make != nil, "make is not installed"))
  func makeAndTheImportRunTheSameCommandsInTheSameOrder() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "Makefile",
      """
      .PHONY: all test build gen
      VERSION := 1.2
      FLAGS = -v $(VERSION)

      all: test

      test: build
      \t@echo "step: test $(FLAGS) for $@"

      build: gen
      \t@echo "step: build one"
      \t-@false
      \t@echo "step: build two after $<"

      gen:
      \t@echo "step: gen"

      """)
    let original = try Self.steps(Self.make!, ["-j1", "all"], in: project.directory)
    #expect(original == ["step: gen", "step: build one", "step: build two after gen", "step: test -v 1.2 for test"])
    #expect(try Self.runnerSteps(project, "Makefile", ["all"]) == original)
  }

  @Test(.enabled(if: just != nil, "just is not installed (pip install rust-just)"))
  func justAndTheImportRunTheSameCommandsInTheSameOrder() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "justfile",
      """
      version := "1.2"

      default: test

      test: (build "fast")
          @echo "step: test {{version}}"

      build mode="slow": gen
          @echo "step: build {{mode}}"
          -@false
          @echo "step: build done"

      gen:
          @echo "step: gen"

      """)
    let original = try Self.steps(Self.just!, [], in: project.directory)
    #expect(original == ["step: gen", "step: build fast", "step: build done", "step: test 1.2"])
    #expect(try Self.runnerSteps(project, "justfile", []) == original)
  }

  @Test(.enabled(if: task != nil, "go-task is not installed (pip install go-task-bin)"))
  func goTaskAndTheImportRunTheSameCommandsInTheSameOrder() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      vars:
        VERSION: "1.2"
      tasks:
        default:
          deps: [test]
        test:
          deps: [build]
          cmds:
            - 'echo "step: test {{.VERSION}}"'
        build:
          deps:
            - task: gen
              vars: { WHO: me }
          cmds:
            - 'echo "step: build"'
            - task: after
            - cmd: "false"
              ignore_error: true
            - for: [a, b]
              cmd: 'echo "step: item {{.ITEM}}"'
        gen:
          cmds:
            - 'echo "step: gen {{.WHO}}"'
        after:
          cmds:
            - 'echo "step: after"'

      """)
    let original = try Self.steps(Self.task!, ["default"], in: project.directory)
    #expect(
      original == ["step: gen me", "step: build", "step: after", "step: item a", "step: item b", "step: test 1.2"])
    // A task call runs where it stands, after the commands above it.
    #expect(try Self.runnerSteps(project, "Taskfile.yml", ["default"]) == original)
  }

  /// A var computed by a command (`sh:`) is computed once, as a param's `default: { sh: }`;
  /// a call's `for:` is runner's `for:`.
  @Test(.enabled(if: task != nil, "go-task is not installed (pip install go-task-bin)"))
  func goTaskCommandVarsAndCallLoopsImportAsTheirOwnKeys() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      vars:
        STAMP: { sh: 'echo once >> sh.log; echo s1' }
      tasks:
        default:
          cmds:
            - 'echo "step: start {{.STAMP}}"'
            - for: [amd64, arm64]
              task: build
              vars: { ARCH: '{{.ITEM}}' }
            - 'echo "step: end {{.STAMP}}"'
        build:
          cmds:
            - 'echo "step: build {{.ARCH}} {{.STAMP}}"'

      """)
    let original = try Self.steps(Self.task!, ["default"], in: project.directory)
    #expect(original == ["step: start s1", "step: build amd64 s1", "step: build arm64 s1", "step: end s1"])
    #expect(project.read("sh.log") == "once\n")
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("sh.log"))
    #expect(try Self.runnerSteps(project, "Taskfile.yml", ["default"]) == original)
    #expect(project.read("sh.log") == "once\n", "the command ran once, when the file loaded")
    let written = project.read("tasks.yml") ?? ""
    #expect(written.contains("STAMP: { default: { sh: "), "\(written)")
    #expect(written.contains("for: [amd64, arm64]") && written.contains("${{ item }}"), "\(written)")
  }

  /// A call whose task name holds the loop's item (`task: build-{{.ITEM}}`) becomes one call
  /// per item, the name written in; `deps:` with `for:` one dependency per item (runner's
  /// dependencies have no `for:`), the item written into their vars. (The file did not load.)
  @Test(.enabled(if: task != nil, "go-task is not installed (pip install go-task-bin)"))
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
      let original = try Self.steps(Self.task!, [target], in: project.directory)
      #expect(!original.isEmpty)
      try? FileManager.default.removeItem(at: project.directory.appendingPathComponent("tasks.yml"))
      #expect(try Self.runnerSteps(project, "Taskfile.yml", [target]) == original, "\(target)")
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
  @Test(.enabled(if: task != nil, "go-task is not installed (pip install go-task-bin)"))
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
          cmds:
            - task: default
              if: "true"

      """)
    let original = try Self.steps(Self.task!, ["default"], in: project.directory)
    #expect(original.count == 8, "\(original)")
    #expect(try Self.runnerSteps(project, "Taskfile.yml", ["default"]) == original)
    let dev = try Self.steps(Self.task!, ["default", "ENV=dev"], in: project.directory)
    #expect(dev != original)
    #expect(Self.stepLines(try project.run(["-j", "1", "ENV=dev", "default"]).stdout) == dev)
    let imported = try project.run("import", "Taskfile.yml", "-o", "-")
    #expect(imported.stderr.contains("not carried over: if: true: runner's task calls have no condition"))
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
  @Test(.enabled(if: just != nil, "just is not installed (pip install rust-just)"))
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
      let original = try Self.steps(Self.just!, justArguments, in: project.directory)
      #expect(!original.isEmpty)
      let ran = try project.run(["-j", "1", runnerTarget])
      #expect(ran.status == 0, "\(ran.stderr)")
      #expect(Self.stepLines(ran.stdout) == original, "\(runnerTarget)")
    }
    // Dependencies on the modules' recipes run them (in runner, beside each other).
    let original = try Self.steps(Self.just!, ["both"], in: project.directory)
    let ran = try project.run(["-j", "1", "both"])
    #expect(Set(Self.stepLines(ran.stdout)) == Set(original) && original.count == 3, "\(ran.stdout)")
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

  /// A justfile's backtick variable is computed once, as a param's `default: { sh: }`.
  @Test(.enabled(if: just != nil, "just is not installed (pip install rust-just)"))
  func aJustBacktickVariableImportsAsACommandDefault() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "justfile",
      """
      stamp := `echo once >> sh.log; echo s1`

      default: (build "x")
          @echo "step: default {{stamp}}"

      build mode:
          @echo "step: build {{mode}} {{stamp}}"

      """)
    let original = try Self.steps(Self.just!, [], in: project.directory)
    #expect(original == ["step: build x s1", "step: default s1"])
    #expect(project.read("sh.log") == "once\n")
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("sh.log"))
    #expect(try Self.runnerSteps(project, "justfile", []) == original)
    #expect(project.read("sh.log") == "once\n", "the command ran once, when the file loaded")
  }
}
