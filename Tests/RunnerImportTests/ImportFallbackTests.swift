import Foundation
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

  /// A just interpolation the import cannot carry fails its line (a script: the whole script)
  /// and says so; it was left as written, and `echo` printed it.
  @Test func aJustInterpolationNotCarriedFailsLoudly() throws {
    let (file, report) = try JustfileImporter(path: "justfile").convert(
      """
      line:
        echo before
        echo {{ blake3_file('baz') }}

      script:
        #!/usr/bin/env bash
        echo {{ blake3('baz') }}

      """)
    let line = try #require(file.tasks.first { $0.name == "line" })
    guard case .shell(let first) = line.commands[0], case .shell(let second) = line.commands[1] else {
      Issue.record("\(line.commands)")
      return
    }
    #expect(first == "echo before")
    #expect(
      second
        == "echo 'runner import: justfile:3: not carried over: {{ blake3_file('\\''baz'\\'') }}: write it in shell'"
        + " >&2; exit 1", "\(second)")
    let script = try #require(file.tasks.first { $0.name == "script" })
    #expect(script.commands.count == 1 && script.shellArguments == nil)
    if case .shell(let text) = script.commands[0] { #expect(text.hasSuffix(">&2; exit 1"), "\(text)") }
    #expect(report.entries.filter { $0.reason.contains("the command fails and says so") }.count == 2)
  }

  /// Cases just's own tests showed runner's import changing without a word: each is carried
  /// as just runs it, or reported.
  @Test func justBehaviourOnceSilentIsCarriedOrReported() throws {
    let (file, report) = try JustfileImporter(path: "justfile").convert(
      """
      set ignore-comments
      set tempdir := '.'

      [extension: '.txt']
      ext:
        #!/bin/sh
        echo $0

      comments:
        # Comment lines ignore line continuations \\
        echo something-useful

      [script('cat')]
      catted:
        #!/bin/sh

      bare:
        #!bash
        echo FOO

      a: b && b
        echo a

      b:
        echo b

      """)
    let reasons = report.entries.map { "\($0.line): \($0.reason)" }
    #expect(reasons.contains { $0.hasPrefix("4: ") && $0.contains("not as a file with that extension") }, "\(reasons)")
    #expect(reasons.contains { $0.hasPrefix("2: ") && $0.contains("no script file is written") }, "\(reasons)")
    #expect(reasons.contains { $0.contains("b, a dependency of a too, does not run again") }, "\(reasons)")
    #expect(reasons.contains { $0.hasPrefix("18: ") && $0.contains("'bash' is not a path") }, "\(reasons)")
    let commands = { (name: String) -> [String] in
      (file.tasks.first { $0.name == name }?.commands ?? []).compactMap {
        if case .shell(let text) = $0 { text } else { nil }
      }
    }
    #expect(commands("comments") == ["echo something-useful"])
    #expect(commands("catted").first?.contains("cat \"$script\"") == true, "\(commands("catted"))")
    #expect(commands("catted").first?.contains("#!/bin/sh") == true)
    #expect(commands("bare").count == 1 && commands("bare")[0].hasSuffix("exit 1"), "\(commands("bare"))")
  }

  @Test func goTaskBehaviourOnceSilentIsReported() throws {
    let (_, report) = try TaskfileImporter(path: "Taskfile.yml").convert(
      """
      version: '3'
      vars: { DIR: nowhere-at-all }
      tasks:
        default: { deps: [a, b], cmds: [echo done] }
        quick: { deps: [a, b], failfast: true, cmds: [echo done] }
        a: echo a
        b: echo b
        pwd: { dir: './{{ .DIR }}', cmds: [pwd] }

      """)
    let reasons = report.entries.map { "\($0.line): \($0.reason)" }
    #expect(
      reasons.filter { $0.contains("runner starts at most -j of them at once") } == [
        "4: runner starts at most -j of them at once (go-task starts them all); when one fails, runner stops the "
          + "others (go-task lets them finish, unless failfast: true): runner -k (--keep-going) lets them finish",
        "5: runner starts at most -j of them at once (go-task starts them all)",
      ], "\(reasons)")
    #expect(reasons.contains { $0.hasPrefix("8: ") && $0.contains("go-task makes a missing dir") }, "\(reasons)")
  }

  /// What a review found: a root task (`:setup`) is known from any file; a dependency the
  /// import cannot carry makes the task fail first; a command's `if:` runs in a subshell of its
  /// own; `eq` is reported (go-task compares typed values).
  @Test func goTaskCallsAndConditionsKeepTheirMeaning() throws {
    let (file, report) = try TaskfileImporter(path: "sub/Taskfile.yml").convert(
      """
      version: '3'
      vars: { ENV: prod }
      tasks:
        uses-root: { deps: [':setup'], cmds: ['echo a'] }
        guarded:
          deps:
            - task: uses-root
              if: 'false'
          cmds: ['echo b']
        looped:
          deps:
            - task: uses-root
              for: { var: LIST }
          cmds: ['echo c']
        conditioned:
          cmds:
            - cmd: echo ran
              if: 'exit 0'
            - cmd: echo prod
              if: '{{ eq .ENV "prod" }}'

      """)
    let commands = { (name: String) -> [String] in
      (file.tasks.first { $0.name == name }?.commands ?? []).compactMap {
        if case .shell(let text) = $0 { text } else { nil }
      }
    }
    #expect(file.tasks.first { $0.name == "uses-root" }?.dependencies.map(\.name) == [":setup"])
    #expect(commands("uses-root") == ["echo a"])
    for name in ["guarded", "looped"] {
      #expect(commands(name).first?.hasSuffix(">&2; exit 1") == true, "\(name): \(commands(name))")
      #expect(file.tasks.first { $0.name == name }?.dependencies.isEmpty == true)
    }
    #expect(commands("conditioned").first == "if (\nexit 0\n)\nthen\necho ran\nfi")
    #expect(report.entries.contains { $0.construct == "{{ eq .ENV \"prod\" }}" && $0.reason.contains("typed values") })
  }

  /// A module has one file: two that could be its are refused, as just refuses them; a module
  /// does not switch the checks of the file's own names off.
  @Test func justModulesAreCheckedAsJustChecksThem() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mods-\(UUID().uuidString)")
    try FileManager.default.createDirectory(
      at: directory.appendingPathComponent("foo"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try "a:\n  echo a\n".write(to: directory.appendingPathComponent("foo.just"), atomically: true, encoding: .utf8)
    try "b:\n  echo b\n".write(
      to: directory.appendingPathComponent("foo/justfile"), atomically: true, encoding: .utf8)
    let path = directory.appendingPathComponent("justfile").path
    #expect {
      _ = try JustfileImporter(path: path).convert("mod foo\n")
    } throws: { error in
      (error as? ImportError)?.message.contains("found multiple source files for module `foo`") == true
    }
    #expect {
      _ = try JustfileImporter(path: "justfile").convert("mod m\n\na: missing\n  echo a\n")
    } throws: { error in
      (error as? ImportError)?.message.contains("recipe `a` has unknown dependency `missing`") == true
    }
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
          cmds: ['echo "built by {{.TASK_VERSION}}"']
        b:
          cmds: ['echo "built at {{.TIMESTAMP}}"']

      """)
    guard case .shell(let script) = file.tasks.first?.commands.first else {
      Issue.record("no command")
      return
    }
    #expect(script.hasPrefix("echo 'runner import: Taskfile.yml:4: not carried over: {{.TASK_VERSION}}"), "\(script)")
    #expect(script.hasSuffix("exit 1"))
    #expect(report.entries.contains { $0.construct == "{{.TASK_VERSION}}" })
    // A task without sources has no {{.TIMESTAMP}} in go-task either: it is empty.
    guard case .shell(let other) = file.tasks.last?.commands.first else {
      Issue.record("no command")
      return
    }
    #expect(other == "echo \"built at \"")
    #expect(!report.entries.contains { $0.construct == "{{.TIMESTAMP}}" })
  }

  /// A `for:` over files runner would find in a directory it knows only later is reported;
  /// `exclude:` entries become `!` globs; `{{.TIMESTAMP}}` over them is not guessed.
  @Test func loopsOverFilesTakeExcludesAndRefuseATemplatedDir() throws {
    let (file, report) = try TaskfileImporter(path: "Taskfile.yml").convert(
      """
      version: '3'
      vars: { OUT: out }
      tasks:
        a:
          dir: '{{.OUT}}'
          sources: ['*.c']
          deps: [{ for: sources, task: b, vars: { F: '{{.ITEM}}' } }]
        b: echo {{.F}}
        c:
          method: timestamp
          sources: ['*.c', { exclude: x.c }]
          deps: [{ for: sources, task: b, vars: { F: '{{.ITEM}}' } }]
          cmds: ['echo {{.TIMESTAMP}}']

      """)
    #expect(report.entries.contains { $0.construct == "for: sources" && $0.reason.contains("dir reads vars") })
    let c = try #require(file.tasks.first { $0.name == "c" })
    #expect(c.dependencies.first?.forFound == .files(["*.c", "!x.c"]))
    #expect(report.entries.contains { $0.construct == "{{.TIMESTAMP}}" && $0.reason.contains("own variable") })
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
