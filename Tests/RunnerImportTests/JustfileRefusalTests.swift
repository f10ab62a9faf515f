import Testing

@testable import RunnerImport

/// What just refuses, the import refuses: at the line just names, in just's words (each case
/// was run through just 1.59, which refused it so). A file just accepts imports.
@Suite struct JustfileRefusalTests {
  static let cases: [(text: String, line: Int, message: String)] = [
    ("[private]\n[private]\na:\n  echo a\n", 2, "attribute `private` first used on line 1 is duplicated on line 2"),
    ("a: b\n  echo a\nb: a\n  echo b\n", 3, "recipe `b` has circular dependency `a -> b -> a`"),
    ("a: a\n  echo a\n", 1, "recipe `a` depends on itself"),
    (
      "a:\n\techo tab\n  echo space\n", 3,
      "recipe line has inconsistent leading whitespace, started with `␉` but found line with `␠␠`"
    ),
    ("x = \"1\"\na:\n  echo {{x}}\n", 1, "expected ':=' in the assignment of `x`, but found '='"),
    ("a x=\"1\" y:\n  echo {{x}} {{y}}\n", 1, "non-default parameter `y` follows default parameter"),
    ("a x x:\n  echo {{x}}\n", 1, "recipe `a` has duplicate parameter `x`"),
    ("a +x y:\n  echo {{x}}\n", 1, "parameter `y` follows variadic parameter"),
    ("a:\n  echo a\n\n[private]\n", 4, "after attribute `private`, but found end of file"),
    ("[private(\"x\")]\na:\n  echo a\n", 1, "attribute `private` got 1 argument but takes 0 arguments"),
    ("[group]\na:\n  echo a\n", 1, "attribute `group` got 0 arguments but takes 1 argument"),
    ("[bogus]\na:\n  echo a\n", 1, "unknown attribute `bogus`"),
    (
      "set minimum-version := \"banana\"\na:\n  echo a\n", 1,
      "`minimum-version` setting has invalid version `banana`: expected `MAJOR.MINOR.PATCH`"
    ),
    ("set bogus := true\na:\n  echo a\n", 1, "unknown setting `bogus`"),
    ("set quiet\nset quiet\na:\n  echo a\n", 2, "setting `quiet` first set on line 1 is redefined on line 2"),
    (
      "[default]\na:\n  echo a\n[default]\nb:\n  echo b\n", 5,
      "recipe `b` has duplicate `[default]` attribute, which may only appear once per module"
    ),
    ("a:\n  echo a\na:\n  echo b\n", 3, "recipe `a` first defined on line 1 is redefined on line 3"),
    ("x := \"1\"\nx := \"2\"\na:\n  echo {{x}}\n", 2, "variable `x` has multiple definitions"),
    ("a:\n  echo a\nb: c\n  echo b\n", 3, "recipe `b` has unknown dependency `c`"),
    ("a: (b \"x\")\n  echo a\nb:\n  echo b\n", 1, "dependency `b` got 1 argument but takes 0 arguments"),
    ("alias b := nope\na:\n  echo a\n", 1, "alias `b` has an unknown target `nope`"),
    ("set minimum-version := '999.0.0'\na:\n  echo a\n", 1, "justfile requires just 999.0.0 or later"),
    ("[no-cd]\n[working-directory('x')]\na:\n  echo a\n", 3, "has both `[no-cd]` and `[working-directory]` attributes"),
    ("bar:\n\t\techo hello\n\t\t\techo goodbye\n", 3, "recipe line has extra leading whitespace"),
    ("bar:\n\t echo hello\n", 2, "found a mix of tabs and spaces in leading whitespace: `␉␠`"),
    ("[no-exit-message]\n# c\nhello:\n  @exit 100\n", 1, "extraneous attribute"),
    ("[no-exit-message]\n\nhello:\n  @exit 100\n", 1, "extraneous attribute"),
    ("[script, shell]\nbar:\n", 2, "recipe `bar` has both `[script]` and `[shell]` attributes"),
    (
      "[exit-message, no-exit-message]\nbar:\n", 2,
      "recipe `bar` has both `[exit-message]` and `[no-exit-message]` attributes"
    ),
    ("[confirm(x)]\nfoo:\n", 1, "variable `x` not defined"),
    ("[doc(undefined)]\nfoo:\n", 1, "variable `undefined` not defined"),
    ("[extension: '.txt']\nbaz:\n", 2, "shell recipe `baz` has script recipe attribute `extension`"),
    ("[group('a')]\n[group('a')]\nfoo:\n", 2, "attribute is duplicated on line 2"),
    (
      "set dotenv-command := 'true'\nset dotenv-path := 'foo'\nfoo:\n", 2,
      "`dotenv-command` set on line 1 is incompatible with `dotenv-path`"
    ),
    (
      "set dotenv-required\nset dotenv-command := 'true'\nfoo:\n", 2,
      "`dotenv-required` set on line 1 is incompatible with `dotenv-command`"
    ),
    (
      "set no-cd\nset working-directory := 'x'\nfoo:\n", 2,
      "`no-cd` set on line 1 is incompatible with `working-directory`"
    ),
    ("[arg('bar', long, flag)]\nfoo bar:\n  echo {{bar}}\n", 1, "`flag` arguments require `set lists`"),
    ("set indentation := ('  ' + '  ')\n", 1, "`indentation` setting must be a plain string literal"),
    ("set minimum-version := '''1.0.0'''\n", 1, "`minimum-version` setting must be a plain string literal"),
    ("[doc('bar')]\nset quiet\n", 2, "setting `quiet` has invalid attribute `doc`"),
    ("set unstable\n[private]\nf() := 'x'\na:\n  echo {{f()}}\n", 3, "function `f` has invalid attribute `private`"),
  ]

  @Test(arguments: cases.indices)
  func justRefusesItSoTheImportDoes(index: Int) {
    let (text, line, message) = Self.cases[index]
    do {
      _ = try JustfileImporter(path: "justfile").convert(text)
      Issue.record("imported: \(text)")
    } catch {
      #expect(error.line == line, "\(error)")
      #expect(error.message.contains(message), "\(error.message)")
    }
  }

  /// An interpolation may span lines, as just reads it: one command.
  @Test func anInterpolationSpanningLinesIsOneCommand() throws {
    let (file, _) = try JustfileImporter(path: "justfile").convert(
      "a:\n  echo {{ if \"a\" == \"a\" {\n    \"x\" } else { \"y\" } }}\n  echo z\n")
    let commands = try #require(file.tasks.first).commands.compactMap { command -> String? in
      if case .shell(let text) = command { return text }
      return nil
    }
    #expect(commands == ["echo x", "echo z"])
  }

  @Test func whatJustAcceptsImports() throws {
    for text in [
      "[group('a')]\n[group('b')]\na:\n  echo a\n",
      "set allow-duplicate-recipes\na:\n  echo a\na:\n  echo b\n",
      "set allow-duplicate-variables\nx := '1'\nx := '2'\na:\n  echo {{x}}\n",
      "a x='1' *rest:\n  echo {{x}}\nb: (a '2')\n  echo b\n",
      "[doc('{{nope}}')]\na:\n  echo a\n",
      "[macos]\nopen:\n  echo mac\n[linux]\nopen:\n  echo linux\n",
      "a:\n  echo one \\\n    two\n",
      "# doc\n[private]\na:\n  echo a\n",
      "import? 'other.just'\nfoo:\n  echo foo\n",
      "mod foo\nalias fb := foo::bar\n",
      "[doc(HEX)]\na:\n  echo a\n",
      "set minimum-version := '1.2.3'\na:\n  echo a\n",
      "[env('A', '1')]\n[env('A', '1')]\na:\n  echo $A\n",
      "set unstable\nset lists\n[arg('bar', long, short='b', flag)]\nfoo bar:\n  echo bar\n",
      "[arg('bar', long)]\nfoo bar='x' qux:\n  echo {{bar}}\n",
      "set unstable\nset lists\n[arg('bar', long, flag)]\nfoo bar:\n  echo bar\nbaz: foo\n",
      "set unstable\n[windows]\nf() := 'w'\n[unix]\nf() := 'u'\nfoo:\n  echo {{f()}}\n",
      "set default-script\nfoo:\n  echo foo\n    echo bar\n",
      "[working-directory(target)]\nbaz target:\n  echo bob\n",
      "[windows]\nimport 'windows.just'\nfoo:\n  echo foo\n",
    ] {
      #expect(throws: Never.self, "\(text)") { _ = try JustfileImporter(path: "justfile").convert(text) }
    }
  }
}
