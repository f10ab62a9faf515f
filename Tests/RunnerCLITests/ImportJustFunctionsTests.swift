import Foundation
import Testing

/// just's user-defined functions, `style()`, and settings that read variables, through
/// `runner import`, run beside just on the same file.
struct ImportJustFunctionsTests {
  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed (pip install rust-just)"))
  func justFunctionsStylesAndSettingsGiveWhatJustGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("out-dir/file.txt", "in the working directory\n")
    try project.write("other-dir/file.txt", "in the other directory\n")
    try project.write(
      "justfile",
      """
      set unstable

      x := 'bar'
      dir := 'out'
      set working-directory := dir + '-dir'
      contents := `cat file.txt`

      greet(who) := 'hello ' + who + ' ' + uppercase(x)
      twice(a) := greet(a) + '/' + greet(a)

      foo:
        @echo 'step: {{ greet('you') }} {{ twice('me') }}'
        @echo 'step: {{ style('error') }}red{{ NORMAL }} {{ style('command') }}bold'
        @echo 'step: {{ contents }}'
        @echo "step: $(basename "$PWD")"

      """)
    for (justArguments, runnerArguments) in [
      (["foo"], ["foo"]), (["x=baz", "foo"], ["x=baz", "foo"]), (["dir=other", "foo"], ["dir=other", "foo"]),
    ] {
      let original = try ImportOrderTests.steps(ImportOrderTests.just!, justArguments, in: project.directory)
      #expect(original.count == 4, "\(original)")
      try? FileManager.default.removeItem(at: project.directory.appendingPathComponent("tasks.yml"))
      #expect(try ImportOrderTests.runnerSteps(project, "justfile", runnerArguments) == original)
    }
  }

  /// Without `set unstable`, just refuses user-defined functions; so does the import.
  @Test func userFunctionsNeedUnstable() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("justfile", "f() := 'x'\n\na:\n  echo {{ f() }}\n")
    let imported = try project.run("import", "justfile")
    #expect(imported.status == 2)
    #expect(
      imported.stderr.contains("justfile:1: just refuses the file: user-defined functions are currently unstable"),
      "\(imported.stderr)")
  }

  /// `set dotenv-path` with a list loads each file there, the later winning; a `.env` that is a
  /// directory is skipped, as just skips it.
  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed (pip install rust-just)"))
  func justDotenvListsAndDirectoriesGiveWhatJustGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("foo.env", "KEY=foo\nONLY=foo\n")
    try project.write("bar.env", "KEY=bar\n")
    try project.write("sub/.env/keep", "")
    try project.write(
      "justfile",
      "set unstable\nset lists\nset dotenv-path := ['foo.env', 'bar.env']\n\n@foo:\n  echo \"step: $KEY $ONLY\"\n")
    try project.write("sub/justfile", "set dotenv-load\n\n@foo:\n  echo \"step: ${DOTENV_KEY:-unset}\"\n")
    for directory in [project.directory, project.directory.appendingPathComponent("sub")] {
      let original = try ImportOrderTests.steps(ImportOrderTests.just!, ["foo"], in: directory)
      #expect(original.count == 1, "\(original)")
      let imported = try BinaryRunner.run(["import", "justfile"], in: directory)
      #expect(imported.status == 3, "\(imported.stderr)")
      let ran = try BinaryRunner.run(["foo"], in: directory)
      #expect(ImportOrderTests.stepLines(ran.stdout) == original, "\(ran.stdout)\(ran.stderr)")
    }
  }

  /// With `set lazy`, a backtick variable nothing reads is never run, by just or by runner.
  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed (pip install rust-just)"))
  func justLazyLeavesUnreadBackticksOut() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("justfile", "set lazy\n\nx := 'foo'\nz := `exit 1`\n\na:\n  @echo 'step: {{x}}'\n")
    let original = try ImportOrderTests.steps(ImportOrderTests.just!, ["a"], in: project.directory)
    #expect(original == ["step: foo"])
    #expect(try ImportOrderTests.runnerSteps(project, "justfile", ["a"]) == original)
  }

  /// `set dotenv-override` and `set dotenv-command` (one command, or several with `set lists`)
  /// give the values just gives, over a variable the shell already sets.
  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed (pip install rust-just)"))
  func justDotenvOverrideAndCommandGiveWhatJustGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(".env", "KEY=dotenv\nOTHER=dotenv-other\n")
    for justfile in [
      "set dotenv-override\n\n@foo:\n  echo \"step: $KEY $OTHER\"\n",
      "set dotenv-load\nset dotenv-override := true\n\n@foo:\n  echo \"step: $KEY $OTHER\"\n",
      "set dotenv-command := 'echo KEY=command'\n\n@foo:\n  echo \"step: $KEY ${OTHER:-unset}\"\n",
      "set dotenv-override\nset dotenv-command := 'echo KEY=command'\n\n@foo:\n  echo \"step: $KEY\"\n",
      "set unstable\nset lists\nset dotenv-command := ['echo KEY=foo', 'echo KEY=bar; echo BAZ=qux']\n\n@foo:\n  echo \"step: $KEY $BAZ\"\n",
    ] {
      try project.write("justfile", justfile)
      try? FileManager.default.removeItem(at: project.directory.appendingPathComponent("tasks.yml"))
      let original = try ImportOrderTests.steps(
        "/usr/bin/env", ["KEY=shell", ImportOrderTests.just!, "foo"], in: project.directory)
      #expect(original.count == 1, "\(justfile): \(original)")
      let imported = try project.run("import", "justfile")
      #expect(imported.status == 0, "\(justfile): \(imported.stderr)")
      let ran = try project.run(["foo"], environment: ["KEY": "shell"])
      #expect(ImportOrderTests.stepLines(ran.stdout) == original, "\(justfile): \(ran.stdout)\(ran.stderr)")
    }
  }

  /// `[working-directory]` wins over `set no-cd`; `recipe_name()` in a default is the recipe's
  /// name; an `assert` known to hold is empty; an exported variadic parameter is its words
  /// joined with spaces, and so are the words
  /// a variadic passes to one parameter of a dependency (without `set lists`); `quote()` inside
  /// double quotes.
  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed (pip install rust-just)"))
  func justRecipeDetailsGiveWhatJustGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("workspace/data.txt", "step: in workspace\n")
    try project.write(
      "justfile",
      """
      set no-cd

      [working-directory('workspace')]
      foo:
        @cat data.txt

      bar x=recipe_name():
        @echo "step: {{x}}{{ assert('a' == 'a', 'never') }}"

      baz +$args:
        @echo "step: $args"

      qux *args: (quux args)

      quux first *rest:
        @echo "step: first={{ first }} rest={{ rest }}"

      quoted *args:
        @echo "step: q{{ quote(args) }}q"

      """)
    for (justArguments, runnerArguments) in [
      (["foo"], ["foo"]), (["bar"], ["bar"]), (["baz", "a", "b c"], ["baz", "--", "a", "b c"]),
      (["qux", "a", "b"], ["qux", "--", "a", "b"]), (["quoted", "it's", "x"], ["quoted", "--", "it's", "x"]),
      (["quoted"], ["quoted"]),
    ] {
      let original = try ImportOrderTests.steps(ImportOrderTests.just!, justArguments, in: project.directory)
      #expect(original.count == 1, "\(original)")
      try? FileManager.default.removeItem(at: project.directory.appendingPathComponent("tasks.yml"))
      #expect(try ImportOrderTests.runnerSteps(project, "justfile", runnerArguments) == original)
    }
  }
}
