import Testing

@testable import RunnerImport

/// Behaviour the imports carry or report rather than change without a word.
@Suite struct ImportFallbackTests {
  @Test func aVarCallersPassStartsFromTheFilesValue() throws {
    let (file, _) = try TaskfileImporter(path: "Taskfile.yml").convert(
      """
      version: '3'
      vars:
        VAR: global
      tasks:
        default:
          cmds:
            - task: called
              vars: { VAR: passed }
        called:
          cmds: ['echo "{{.VAR}}"']

      """)
    let called = try #require(file.tasks.first { $0.name == "called" })
    #expect(called.params.first { $0.name == "VAR" }?.defaultValue == "global")
  }

  @Test func aParameterTheShellReadsAsItsOwnVariableIsReported() throws {
    let (_, report) = try JustfileImporter(path: "justfile").convert(
      """
      wut $FOO='a' BAR='b':
        echo $FOO
        if [ -n "${BAR+1}" ]; then echo defined; fi

      plain BAR='b':
        echo {{BAR}}

      """)
    let lines = report.entries.map(\.reason)
    #expect(lines.filter { $0.contains("the commands see $BAR") }.count == 1, "\(lines)")
    #expect(!lines.contains { $0.contains("$FOO") })
  }

  @Test func aTasksDotenvUnderAFileEnvIsReported() throws {
    let (_, report) = try TaskfileImporter(path: "Taskfile.yml").convert(
      """
      version: '3'
      env:
        ENV: global
      tasks:
        a:
          dotenv: [task.env]
          cmds: ['echo "$ENV"']

      """)
    #expect(report.entries.contains { $0.construct == "dotenv" && $0.reason.contains("in go-task they win") })
  }

  @Test func goTasksOwnVariablesFailLoudly() throws {
    let (file, report) = try TaskfileImporter(path: "Taskfile.yml").convert(
      """
      version: '3'
      tasks:
        a:
          cmds: ['echo "built at {{.TIMESTAMP}}"']

      """)
    guard case .shell(let script) = file.tasks.first?.commands.first else {
      Issue.record("no command")
      return
    }
    #expect(script.hasPrefix("echo 'runner import: Taskfile.yml:4: not carried over: {{.TIMESTAMP}}"), "\(script)")
    #expect(script.hasSuffix("exit 1"))
    #expect(report.entries.contains { $0.construct == "{{.TIMESTAMP}}" })
  }

  @Test func shellOptionListingsAreReported() throws {
    let (_, report) = try TaskfileImporter(path: "Taskfile.yml").convert(
      """
      version: '3'
      tasks:
        a:
          cmds: ['shopt globstar', 'shopt -s globstar', 'set -o']

      """)
    #expect(report.entries.filter { $0.construct == "shopt / set -o" }.count == 1)
    #expect(TaskfileImporter.printsShellOptions("set -o"))
    #expect(!TaskfileImporter.printsShellOptions("set -o pipefail; shopt -s globstar"))
  }
}
