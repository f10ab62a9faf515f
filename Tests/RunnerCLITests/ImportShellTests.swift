import Foundation
import Testing

/// An import runs its commands with the original tool's shell semantics: go-task's errexit
/// without pipefail or nounset unless `set:` asks (file, task or command), just's `sh -cu` line
/// by line and a shebang recipe's own interpreter flags. Each case runs the real tool and
/// runner on the import, and compares the `step:` lines and whether it failed.
@Suite struct ImportShellTests {
  /// The step lines and exit status of the tool, then of runner on the import.
  func both(_ file: String, _ text: String, tool: String, target: String) throws -> (
    tool: ([String], Bool), runner: ([String], Bool), report: String
  ) {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(file, text)
    let original = try ImportOrderTests.outcome(tool, [target], in: project.directory)
    let imported = try project.run("import", file)
    #expect(imported.status == 0 || imported.status == 3, "\(imported.stderr)")
    let ran = try project.run(["-j", "1", target])
    // runner's own lines quote the failed command: only the task's output counts.
    let lines = ran.stdout.split(separator: "\n").filter { $0.hasPrefix("\(target) | step:") }.joined(separator: "\n")
    return (original, (ImportOrderTests.stepLines(lines), ran.status == 0), imported.stderr)
  }

  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed"))
  func goTaskCommandsRunWithoutErrexitUnlessSetAsks() throws {
    let taskfile = """
      version: '3'
      tasks:
        loose:
          cmds:
            - 'false | echo "step: piped"'
            - 'echo "step: $NOT_SET_ANYWHERE unset is empty"'
            - |
              false
              echo "step: never after a failure"
        strict:
          set: [pipefail]
          cmds:
            - 'false | echo "step: piped under pipefail"'
            - 'echo "step: never"'
        one:
          cmds:
            - cmd: 'echo "step: $NOT_SET_ANYWHERE"'
              set: [nounset]
            - 'echo "step: never either"'

      """
    for target in ["loose", "strict", "one"] {
      let (tool, runner, report) = try both(
        "Taskfile.yml", taskfile, tool: ImportOrderTests.task!, target: target)
      #expect(runner.0 == tool.0 && runner.1 == tool.1, "\(target): go-task \(tool), runner \(runner)")
      #expect(!report.contains("set"), "\(report)")
    }
  }

  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed"))
  func justLinesRunWithShCuAndShebangsWithTheirFlags() throws {
    let justfile = """
      lists:
        false; echo step: a list goes on
        echo step: next line

      unset:
        echo step: $RUNNER_IMPORT_SURELY_UNSET

      ignored:
        -exit 101
        echo step: after an ignored exit

      script:
        #!/usr/bin/env bash
        false
        echo step: a script without -e goes on

      """
    for target in ["lists", "unset", "script", "ignored"] {
      let (tool, runner, _) = try both("justfile", justfile, tool: ImportOrderTests.just!, target: target)
      #expect(runner.0 == tool.0 && runner.1 == tool.1, "\(target): just \(tool), runner \(runner)")
    }
  }

  @Test(.enabled(if: ImportOrderTests.task != nil, "go-task is not installed"))
  func goTaskTemplatesAreCarriedOrFailLoudly() throws {
    let taskfile = """
      version: '3'
      vars:
        CHANNEL: beta
      tasks:
        carried:
          cmds:
            - 'echo "step: {{.UNSET_HERE | default "fallback"}} {{.CHANNEL | upper}}"'
            - 'echo ''step: {{.CHANNEL | default "x"}}'''
        failing:
          vars:
            V:
              sh: exit 3
          cmds:
            - 'echo "step: v={{.V}}"'
        conditional:
          cmds:
            - 'echo "step: {{if .CI}}ci{{else}}local{{end}}"'

      """
    for target in ["carried", "failing"] {
      let (tool, runner, _) = try both("Taskfile.yml", taskfile, tool: ImportOrderTests.task!, target: target)
      #expect(runner.0 == tool.0 && runner.1 == tool.1, "\(target): go-task \(tool), runner \(runner)")
    }
    // A conditional is not carried: the command fails and says why, instead of printing the template.
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("Taskfile.yml", taskfile)
    #expect(try project.run("import", "Taskfile.yml").status == 3)
    let ran = try project.run("conditional")
    #expect(ran.status == 1)
    #expect(ran.stdout.contains("runner import: Taskfile.yml:17: not carried over: {{if .CI}}"), "\(ran.stdout)")
    #expect(!ran.stdout.contains("conditional | step:"))
  }

  @Test func anIncludedTaskfileBesideTheRootGetsATasksFileOfItsOwn() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "Taskfile.yml", "version: '3'\nincludes:\n  other: ./Taskfile2.yml\ntasks:\n  a:\n    cmds: [echo a]\n")
    try project.write("Taskfile2.yml", "version: '3'\ntasks:\n  b:\n    cmds: [echo from-b]\n    dir: made-later\n")
    let root = try project.run("import", "Taskfile.yml")
    #expect(root.stderr.contains("runner import Taskfile2.yml -o Taskfile2.tasks.yml"), "\(root.stderr)")
    let other = try project.run("import", "Taskfile2.yml", "-o", "Taskfile2.tasks.yml")
    #expect(other.stderr.contains("dir: made-later: not there now: go-task makes a missing dir"), "\(other.stderr)")
    try FileManager.default.createDirectory(
      at: project.directory.appendingPathComponent("made-later"), withIntermediateDirectories: true)
    let ran = try project.run("other:b")
    #expect(ran.status == 0, "\(ran.stdout)\(ran.stderr)")
    #expect(ran.stdout.contains("from-b"))
  }

  @Test func anEmptyTaskfileIsRefusedAtItsFirstLine() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("Taskfile.yml", "")
    let output = try project.run("import", "Taskfile.yml")
    #expect(output.status == 2)
    #expect(output.stderr.contains("Taskfile.yml:1"), "\(output.stderr)")
    #expect(project.read("tasks.yml") == nil)
  }

  @Test func aCommandSettingTheImportCannotCarryIsReported() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "Taskfile.yml",
      """
      version: '3'
      tasks:
        a:
          cmds:
            - cmd: echo hi
              timeout: 5 seconds
            - cmd: echo again
              timeout: 99999999999999999999999h

      """)
    let output = try project.run("import", "Taskfile.yml")
    #expect(output.status == 3)
    #expect(
      output.stderr.contains("Taskfile.yml:6: not carried over: cmd: timeout: not a Go duration"), "\(output.stderr)")
    #expect(
      output.stderr.contains("Taskfile.yml:8: not carried over: cmd: timeout: not a Go duration"), "\(output.stderr)")
  }
}
