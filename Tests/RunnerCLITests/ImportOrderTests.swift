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
