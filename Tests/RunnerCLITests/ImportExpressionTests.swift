import Foundation
import Testing

/// just's expressions through `runner import`, run beside just on the same file: what is known
/// at import is evaluated there (conditionals, comparisons, the text and path functions), what
/// depends on a parameter, the files or the machine becomes shell that computes it when the
/// command runs; `set lists` with its booleans, lists and logical operators.
struct ImportExpressionTests {
  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed (pip install rust-just)"))
  func justExpressionsGiveWhatJustGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("present.txt", "x\n")
    try project.write(
      "justfile",
      """
      name := 'fooBar bazQux'
      mode := if os() == 'linux' { 'native' } else { 'cross' }
      kind := if '0' == '1' { 'a' } else if '0' == '0' { 'b' } else { 'c' }

      foo p='lin' q='x':
        echo "step: {{ kebabcase(name) }} {{ snakecase(name) }} {{ titlecase(name) }} {{ uppercamelcase(name) }}"
        echo "step: {{ mode }} {{ kind }} {{ f'[{{ if p == 'lin' { 'L' } else { 'other' } }}]' }}"
        echo "step: {{ if p != q { 'differ' } else { 'same' } }} {{ if p =~ '^l.n$' { 're' } else { 'nore' } }}"
        echo "step: {{ uppercase(p) }} {{ replace(p + '-' + q, '-', '_') }} {{ trim('  t  ') }}"
        echo "step: {{ path_exists('present.txt') }} {{ path_exists('absent.txt') }} {{ path_exists(p) }}"
        echo "step: {{ parent_directory('a/b/c.tar.gz') }} {{ file_stem('a/b/c.tar.gz') }} {{ extension('a/b/c.tar.gz') }} {{ without_extension('a/b/c.tar.gz') }} {{ clean('a/./b/../c') }} {{ join('a', 'b', '/c') }}"
        echo "step: {{ semver_matches('1.2.3', '>=1.2, <2') }} {{ semver_matches('0.3.1', '^0.2') }} {{ replace_regex('123bar123bar', '\\d+bar', 'x$0') }}"
        echo "step: {{ if path_exists('present.txt') == 'true' { 'yes' } else { 'no' } }} {{ num_cpus() }} {{ arch() }}"

      """)
    for (justArguments, runnerArguments) in [
      (["foo"], ["foo"]), (["foo", "linux", "linux"], ["foo", "p=linux", "q=linux"]),
    ] {
      let original = try ImportOrderTests.steps(ImportOrderTests.just!, justArguments, in: project.directory)
      #expect(original.count == 8, "\(original)")
      try? FileManager.default.removeItem(at: project.directory.appendingPathComponent("tasks.yml"))
      #expect(try ImportOrderTests.runnerSteps(project, "justfile", runnerArguments) == original)
    }
  }

  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed (pip install rust-just)"))
  func justListsGiveWhatJustGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("present.txt", "x\n")
    try project.write(
      "justfile",
      """
      set unstable
      set lists

      items := ['a', 'b'] ++ ['c']
      export EMPTY := []

      foo *args:
        echo "step: {{ show(items) }} {{ len(items) }} {{ items + '.o' }} {{ join_list(items, ',') }} {{ show(split('x y')) }}"
        echo "step: {{ path_exists('absent.txt') || 'fallback' }} {{ path_exists('present.txt') && 'both' }} {{ !path_exists('absent.txt') }}"
        echo "step: {{ which('definitely-not-a-program') || 'none' }} {{ if args { 'some' } else { 'no' } }} {{ args || 'default' }}"
        printf 'step: <%s>\\n' {{ quote(args) }}
        echo "step: ${EMPTY-unset} {{ if 'a' == 'a' { 'then' } }}{{ if 'a' == 'b' { 'never' } }}"

      """)
    for (justArguments, runnerArguments) in [(["foo"], ["foo"]), (["foo", "x y", "z"], ["foo", "--", "x y", "z"])] {
      let original = try ImportOrderTests.steps(ImportOrderTests.just!, justArguments, in: project.directory)
      #expect(original.count >= 5, "\(original)")
      try? FileManager.default.removeItem(at: project.directory.appendingPathComponent("tasks.yml"))
      #expect(try ImportOrderTests.runnerSteps(project, "justfile", runnerArguments) == original)
    }
  }

  /// What just refuses about expressions, the import refuses: a list feature without `set
  /// lists`, a name defined nowhere (also in a branch never taken).
  @Test func expressionsJustRefusesAreRefused() throws {
    let cases = [
      (
        "x := 'foo' || 'bar'\nfoo:\n  echo hi\n",
        "justfile:1: just refuses the file: logical operators require `set lists`"
      ),
      (
        "x := if 'a' == 'a' { 'b' }\nfoo:\n  echo hi\n",
        "justfile:1: just refuses the file: `if` without `else` requires `set lists`"
      ),
      (
        "x := 'a' == 'b'\nfoo:\n  echo hi\n",
        "justfile:1: just refuses the file: comparison operators require `set lists`"
      ),
      (
        "foo:\n  echo {{ show('a') }}\n",
        "justfile:2: just refuses the file: the `show()` function requires `set lists`"
      ),
      (
        "a := if '' == '' { '' } else { b }\nfoo:\n  echo {{ a }}\n",
        "justfile:1: just refuses the file: variable `b` not defined"
      ),
      ("[confirm(nope())]\nbar:\n", "justfile:1: just refuses the file: call to unknown function `nope`"),
      ("foo:\n  echo {{ foo bar }}\n", "justfile:2: just refuses the file: the interpolation is no expression"),
      ("foo:\n  echo {{ # hello\n    'a'\n  }}\n", "justfile:2: just refuses the file: the interpolation is no"),
      (
        "unexport A\nfoo:\n  echo\nunexport A\n",
        "justfile:4: just refuses the file: variable `A` is unexported multiple"
      ),
      ("foo:\n  echo {{ 'a'\nbar:\n  echo b\n", "justfile:2: unterminated interpolation: '{{' without '}}'"),
      ("unexport A\nexport A := 'x'\nfoo:\n  echo\n", "justfile:2: just refuses the file: variable A is both exported"),
      ("set ignore-comments\nfoo:\n  # {{ foo bar }}\n", "justfile:3: just refuses the file: the interpolation is no"),
    ]
    for (text, message) in cases {
      let project = try TaskFileProject()
      defer { project.remove() }
      try project.write("justfile", text)
      let imported = try project.run("import", "justfile")
      #expect(imported.status == 2, "\(text)")
      #expect(imported.stderr.contains(message), "\(imported.stderr)")
    }
  }

  /// just reads an interpolation across lines (a string in it keeps its line breaks), and
  /// refuses to choose between `justfile` and `.justfile`.
  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed (pip install rust-just)"))
  func interpolationsSpanningLinesGiveWhatJustGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "justfile",
      """
      foo:
        echo "step: {{
          'a'
      + 'b'
            + 'c'
        }}"
        echo {{'step: x
        echo step: y'}}z

      """)
    let original = try ImportOrderTests.steps(ImportOrderTests.just!, ["foo"], in: project.directory)
    #expect(original == ["step: abc", "step: x", "step: yz"])
    #expect(try ImportOrderTests.runnerSteps(project, "justfile", ["foo"]) == original)
    try project.write(".justfile", "foo:\n")
    let imported = try project.run("import", "justfile", "--force")
    #expect(imported.status == 2)
    #expect(imported.stderr.contains("multiple candidate justfiles found in `.`: `.justfile` and `justfile`"))
  }

  /// A `.env` line just refuses (an unquoted value with a blank) and runner reads is reported.
  @Test func aDotenvValueJustRefusesIsReported() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("justfile", "set dotenv-load\n\nfoo:\n  echo $FOO\n")
    try project.write(".env", "A='quoted value'\nFOO=bar baz # note\n")
    let imported = try project.run("import", "justfile")
    #expect(imported.status == 3)
    #expect(
      imported.stderr.contains(
        "justfile:1: not carried over: set dotenv-load: .env:2 holds an unquoted value with a blank"),
      "\(imported.stderr)")
    #expect(!imported.stderr.contains(".env:1"))
  }

  /// `set positional-arguments` (the params, then the variadic words, as `$1` …), just's
  /// constants, and defaults only the shell can compute (a backtick, `arch()`).
  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed (pip install rust-just)"))
  func positionalArgumentsConstantsAndComputedDefaultsGiveWhatJustGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "justfile",
      """
      set positional-arguments

      foo a b='x' *rest:
        echo "step: $1 $2 $# {{ HEX }} {{ PATH_SEP }}"

      bar x=`echo computed` y=arch():
        echo "step: {{ x }} {{ y }} {{ `echo inline` }}"

      words +z="A B":
        printf 'step: %s\\n' {{ z }}

      """)
    let cases = [
      (["foo", "1", "2", "r1", "r2"], ["foo", "a=1", "b=2", "--", "r1", "r2"]), (["bar"], ["bar"]),
      (["words"], ["words"]), (["words", "x"], ["words", "--", "x"]),
    ]
    for (justArguments, runnerArguments) in cases {
      let original = try ImportOrderTests.steps(ImportOrderTests.just!, justArguments, in: project.directory)
      #expect(!original.isEmpty, "\(original)")
      try? FileManager.default.removeItem(at: project.directory.appendingPathComponent("tasks.yml"))
      #expect(try ImportOrderTests.runnerSteps(project, "justfile", runnerArguments) == original)
    }
  }

  /// `set lists` is unstable: just refuses it without `set unstable` (or `JUST_UNSTABLE`).
  @Test(.enabled(if: ProcessInfo.processInfo.environment["JUST_UNSTABLE"] == nil, "JUST_UNSTABLE is set here"))
  func setListsWithoutUnstableIsRefused() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("justfile", "set lists\nfoo:\n  echo hi\n")
    let imported = try project.run("import", "justfile")
    #expect(imported.status == 2)
    #expect(imported.stderr.contains("justfile:1: just refuses the file: the `lists` setting is currently unstable"))
  }

  /// A variable of plain words that only recipe lines read is a file param, so `runner
  /// NAME=VALUE` sets it as `just NAME=VALUE` does; a dependency's argument known only when the
  /// run starts (a backtick, `env()`) is a param of the caller whose default the shell prints.
  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed (pip install rust-just)"))
  func justOverridesAndRuntimeArgumentsGiveWhatJustGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "justfile",
      """
      export X := 'ex'
      target := 'debug'
      folded := 'a'
      other := folded + '-b'

      build: (show `echo $X`) (show env('RUNNER_IMPORT_TEST_UNSET', 'fallback'))
        echo "step: build {{target}} '{{target}}' {{other}}"

      show arg:
        echo "step: show {{arg}}"

      """)
    for (justArguments, runnerArguments) in [
      (["build"], ["-j1", "build"]), (["target=release", "build"], ["-j1", "target=release", "build"]),
    ] {
      let original = try ImportOrderTests.steps(ImportOrderTests.just!, justArguments, in: project.directory)
      #expect(original.count == 3, "\(original)")
      try? FileManager.default.removeItem(at: project.directory.appendingPathComponent("tasks.yml"))
      #expect(Set(try ImportOrderTests.runnerSteps(project, "justfile", runnerArguments)) == Set(original))
    }
    // A variable another one reads stays written in: setting it is refused, never half applied.
    let refused = try project.run("folded=z", "build")
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("unknown param 'folded'"), "\(refused.stderr)")
  }

  /// A recipe line continued with `\`, an alias for another system, and the caller's variadic
  /// words passed on to a variadic recipe (runner's `args: pass`).
  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed (pip install rust-just)"))
  func justContinuationsSystemAliasesAndPassedWordsGiveWhatJustGives() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "justfile",
      """
      set unstable
      set lists

      all: first \
           second

      [unix]
      alias f := first

      [windows]
      alias f := second

      first:
        @echo 'step: first'

      second:
        @echo 'step: second'

      foo *args: (bar 'baz' args)

      bar first *rest:
        @echo 'step: {{ show(first) }} {{ show(rest) }}'

      """)
    for (justArguments, runnerArguments) in [
      (["all"], ["all"]), (["f"], ["f"]), (["foo", "x y", "z"], ["foo", "--", "x y", "z"]),
    ] {
      let original = try ImportOrderTests.steps(ImportOrderTests.just!, justArguments, in: project.directory)
      #expect(!original.isEmpty, "\(justArguments)")
      try? FileManager.default.removeItem(at: project.directory.appendingPathComponent("tasks.yml"))
      #expect(Set(try ImportOrderTests.runnerSteps(project, "justfile", runnerArguments)) == Set(original))
    }
  }

  /// A script handed to a program that prints it (`cat`) shows the blank lines just pads it
  /// with, so that its lines are the justfile's.
  @Test(.enabled(if: ImportOrderTests.just != nil, "just is not installed (pip install rust-just)"))
  func justScriptFilesKeepTheJustfilesLineNumbers() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write(
      "justfile",
      """
      x := 'a'

      foo:
        #!/usr/bin/env cat
        one {{ x +
          'b' }}
        two

      [script('cat')]
      bar:
        three

      """)
    #expect(try project.run("import", "justfile").status == 3)
    for name in ["foo", "bar"] {
      let original = try project.shell("'\(ImportOrderTests.just!)' \(name)")
      #expect(original.contains("#!") || original.contains("three"), "\(original)")
      let ran = try project.run(name, "--output", "grouped")
      // Each line as the task printed it: `foo | text`, `foo |` for an empty one.
      let lines = ran.stdout.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
        line.hasPrefix("\(name) |")
          ? String(line.dropFirst(name.count + 2).dropFirst(line.count > name.count + 2 ? 1 : 0)) : nil
      }
      #expect(lines.map { $0 + "\n" }.joined() == original, "\(ran.stdout)")
    }
  }
}
