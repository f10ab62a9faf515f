import RunnerModel
import Testing

@testable import RunnerImport

/// just's expression grammar, one rule at a time (`src/parser.rs`: expression, disjunct,
/// comparison, conjunct, conditional, value), and what the import makes of each.
struct JustExpressionTests {
  func parse(_ text: String) throws -> JustExpression {
    var scanner = JustScanner(Array(text))
    let expression = try scanner.expression()
    scanner.skipBlanks()
    #expect(scanner.atEnd, "\(text): stopped at \(scanner.position)")
    return expression
  }

  @Test func eachRuleBuildsItsNode() throws {
    #expect(try parse("'a' || 'b' || 'c'") == .or(.literal("a"), .or(.literal("b"), .literal("c"))))
    #expect(try parse("a && b || c") == .or(.and(.variable("a"), .variable("b")), .variable("c")))
    #expect(try parse("a == 'x'") == .comparison("==", .variable("a"), .literal("x")))
    #expect(try parse("a !~ 'x'") == .comparison("!~", .variable("a"), .literal("x")))
    // `+` binds tighter than `==`: its right side is a conjunct, not a whole expression.
    #expect(
      try parse("'a' + 'b' == 'ab'")
        == .comparison("==", .concatenation([.literal("a"), .literal("b")]), .literal("ab")))
    #expect(try parse("a / 'b'") == .concatenation([.variable("a"), .literal("/"), .literal("b")]))
    #expect(try parse("/ 'b'") == .concatenation([.literal("/"), .literal("b")]))
    #expect(try parse("a ++ [b]") == .listConcatenation(.variable("a"), .list([.variable("b")])))
    #expect(try parse("!a") == .not(.variable("a")))
    #expect(try parse("['a', b,]") == .list([.literal("a"), .variable("b")]))
    #expect(try parse("[]") == .list([]))
    #expect(try parse("f'x{{ a }}y'") == .format([.literal("x"), .variable("a"), .literal("y")]))
    #expect(
      try parse("if a == 'b' { 'c' } else if a == 'd' { 'e' } else { 'f' }")
        == .conditional(
          .comparison("==", .variable("a"), .literal("b")), .literal("c"),
          .conditional(.comparison("==", .variable("a"), .literal("d")), .literal("e"), .literal("f"))))
    #expect(try parse("if a { 'c' }") == .conditional(.variable("a"), .literal("c"), nil))
    #expect(try parse("uppercase(a)") == .call("uppercase", [.variable("a")]))
    #expect(try parse("(a)") == .variable("a"))
  }

  @Test func sourcesReadBackAsWritten() throws {
    for text in [
      "a || b", "a && b", "a == \"x\"", "!a", "[\"a\", b]", "a ++ b", "if a == \"b\" { \"c\" } else { \"d\" }",
    ] {
      #expect(try parse(text).source == text)
    }
  }

  /// Converts a justfile and returns the commands of its first task.
  func commands(_ justfile: String) throws -> [String] {
    let (file, _) = try JustfileImporter(path: "justfile").convert(justfile)
    return try #require(file.tasks.first).commands.compactMap { command in
      if case .shell(let text) = command { return text }
      return nil
    }
  }

  @Test func whatIsKnownAtImportIsWrittenIn() throws {
    #expect(
      try commands(
        """
        x := if '0' == '1' { 'a' } else if '0' == '0' { 'b' } else { 'c' }
        foo:
          echo {{ x }} {{ kebabcase('fooBar baz') }} {{ os() }} {{ semver_matches('1.2.3', '^1.1') }}
        """) == ["echo b foo-bar-baz linux true"])
    #expect(
      try commands(
        """
        set unstable
        set lists
        xs := ['a', 'b'] ++ ['c']
        foo:
          echo {{ xs + '.o' }} {{ show(xs) }} {{ len(xs) }} {{ [] || 'none' }} {{ 'x' && 'y' }}
        """) == ["echo a.o b.o c.o [\"a\", \"b\", \"c\"] 3 none y"])
  }

  @Test func whatOnlyTheCommandKnowsBecomesShell() throws {
    #expect(
      try commands(
        """
        foo p='a':
          echo {{ if p == 'a' { 'yes' } else { 'no' } }} {{ path_exists('x') }}
        """)
        == [
          "echo $(if [ \"${p}\" = 'a' ]; then printf '%s' 'yes'; else printf '%s' 'no'; fi) "
            + "$(if [ -e 'x' ]; then printf true; else printf false; fi)"
        ])
    #expect(
      try commands(
        """
        set unstable
        set lists
        foo *args:
          printf '%s\\n' {{ quote(args) }} {{ args || 'none' }}
        """)
        == [
          "printf '%s\\n' \"$@\" $(if [ \"$#\" -gt 0 ]; then printf '%s' \"$*\"; else printf '%s' 'none'; fi)"
        ])
  }

  @Test func pathFunctionsFollowRustsPaths() {
    #expect(JustPath.parent("foo") == "")
    #expect(JustPath.parent("/") == nil)
    #expect(JustPath.parent("/a/b/") == "/a")
    #expect(JustPath.fileName("a/..") == nil)
    #expect(JustPath.stemAndExtension(".bashrc")?.stem == ".bashrc")
    #expect(JustPath.stemAndExtension(".bashrc")?.extension == nil)
    #expect(JustPath.stemAndExtension("a.tar.gz")?.extension == "gz")
    #expect(JustPath.clean("../a/./b/../../..") == "../..")
    #expect(JustPath.clean("/../a") == "/a")
    #expect(JustPath.joined("a/", "b") == "a/b")
    #expect(JustPath.joined("a", "/b") == "/b")
  }

  @Test func semverRequirementsMatchAsCargoReadsThem() {
    let cases: [(String, String, Bool)] = [
      ("1.2.3", ">=1.2.3", true), ("1.2.3", ">1.2.3", false), ("1.2.3", "^1.0", true), ("2.0.0", "^1.0", false),
      ("0.2.5", "^0.2.3", true), ("0.3.0", "^0.2.3", false), ("1.2.9", "~1.2.3", true), ("1.3.0", "~1.2", false),
      ("1.2.3", "=1.2", true), ("1.3.0", "=1.2", false), ("1.2.3", ">=1, <1.2", false), ("1.0.0", "*", true),
      ("1.0.0-rc.1", ">=0.9", false),
    ]
    for (version, requirement, expected) in cases {
      #expect(JustSemver.matches(version: version, requirement: requirement) == expected, "\(version) \(requirement)")
    }
    #expect(JustSemver.matches(version: "1.2", requirement: "^1") == nil)
  }

  @Test func heckSplitsWordsAsJustDoes() {
    #expect(JustFunctions.words("HTTPServer fooBar_baz-qux9x") == ["HTTP", "Server", "foo", "Bar", "baz", "qux9x"])
    #expect(JustFunctions.evaluate("lowercamelcase", [["foo bar"]], lists: false) == ["fooBar"])
    #expect(JustFunctions.evaluate("shoutysnakecase", [["foo bar"]], lists: false) == ["FOO_BAR"])
    #expect(JustFunctions.evaluate("replace", [["aXbX"], ["X"], ["-"]], lists: false) == ["a-b-"])
    #expect(JustFunctions.evaluate("replace", [["ab"], [""], ["-"]], lists: false) == ["-a-b-"])
    #expect(JustFunctions.evaluate("trim_start_matches", [["xxa"], ["x"]], lists: false) == ["a"])
    #expect(JustFunctions.evaluate("encode_uri_component", [["a b/ç"]], lists: false) == ["a%20b%2F%C3%A7"])
    // With `set lists`, a function not updated for lists stops just at a list.
    #expect(JustFunctions.evaluate("uppercase", [["a", "b"]], lists: true) == nil)
  }

  /// `set positional-arguments`: the params, then the variadic words, are `$1` …; `$0` is the
  /// recipe's name in just and the task's in runner (reported with a shell that does not say so).
  @Test func positionalArgumentsAreSetAndTheScriptNameReported() throws {
    let (file, report) = try JustfileImporter(path: "justfile").convert(
      "set positional-arguments\nfoo a *rest:\n  echo $1 \"$@\"\n  echo $0\n")
    let commands = try #require(file.tasks.first).commands.compactMap { command -> String? in
      if case .shell(let text) = command { return text }
      return nil
    }
    #expect(commands == ["set -- \"${a}\" \"$@\"; echo $1 \"$@\"", "echo $0"])
    #expect(!report.entries.contains { $0.reason.contains("$0 is the task's name") })
    // Which shells take the word after the script as `$0`.
    #expect(ShellSetting.takesName(["sh", "-cu"]) && ShellSetting.takesName(["/bin/bash", "-euo", "pipefail", "-c"]))
    #expect(!ShellSetting.takesName(["python3", "-c"]) && !ShellSetting.takesName(["ssh", "host", "sh", "-c"]))
    #expect(!ShellSetting.takesName(["bash", "--norc"]))
    // The three a task names (`shell: sh`, `bash`, `zsh`) take it, by the short path too.
    #expect([ShellSetting.standard, ShellSetting.bash, ShellSetting.zsh].allSatisfy(ShellSetting.takesName))
    #expect(ShellSetting.takesName(Array(["/bin/sh", "-e", "-c"])) && ShellSetting.takesName(["zsh", "-c"]))
  }

  /// `[working-directory(param)]`: the task's `dir` reads the param when runner loads the file.
  @Test func aWorkingDirectoryFromAParameterIsTheTasksDir() throws {
    let (file, report) = try JustfileImporter(path: "justfile").convert(
      "[working-directory(target)]\nbaz target:\n  echo bob\n")
    #expect(file.tasks.first?.directory == "${{ params.target }}")
    #expect(report.isEmpty)
  }

  /// Found in review: a wildcard after `>` crashed; a digit before a capital is a word end; a
  /// top-level variable reads top-level names even where a parameter has its name; `quote()`
  /// of the variadic list inside quotes is not carried.
  @Test func reviewFindingsStayFixed() throws {
    #expect(JustSemver.matches(version: "1.2.3", requirement: ">*") == nil)
    #expect(JustSemver.matches(version: "1.2.3", requirement: "<=x") == nil)
    #expect(JustFunctions.words("fooBar2Baz") == ["foo", "Bar2", "Baz"])
    let scoped = try commands(
      """
      a := "global"
      v := if a == "global" { "x" } else { "y" }
      r a:
        echo {{ v }}
      """)
    #expect(scoped == ["echo x"])
    let (file, report) = try JustfileImporter(path: "justfile").convert(
      "set unstable\nset lists\nfoo *rest:\n  echo \"{{ quote(rest) }}\"\n")
    #expect(report.entries.contains { $0.reason.contains("quote() is carried outside quotes only") })
    let text = try #require(file.tasks.first).commands.compactMap { command -> String? in
      if case .shell(let text) = command { return text }
      return nil
    }
    #expect(text.first?.hasSuffix("exit 1") == true)
  }

  /// `unexport NAME` unsets it in every command; `unexport foo:` and `export foo='bar':` are
  /// recipes named like the keyword, as just reads them.
  @Test func unexportAndKeywordNamedRecipes() throws {
    #expect(try commands("unexport FOO\nfoo:\n  echo ${FOO-unset}\n") == ["unset FOO; echo ${FOO-unset}"])
    // A recipe's own `$FOO` parameter stays.
    #expect(try commands("unexport FOO\nfoo $FOO:\n  echo $FOO\n") == ["echo $FOO"])
    for text in ["unexport foo:\n  echo {{foo}}\n", "export foo='bar':\n  echo {{foo}}\n"] {
      let (file, _) = try JustfileImporter(path: "justfile").convert(text)
      let task = try #require(file.tasks.first)
      #expect(["unexport", "export"].contains(task.name), "\(task.name)")
      #expect(task.params.map(\.name) == ["foo"])
    }
  }

  /// `name(a, b) := expression` is a function; `\` continues a recipe's header.
  @Test func functionsAndContinuedHeadersParse() throws {
    var parser = JustfileParser(text: "f(a, b) := a + '-' + b\ng() := 'x'\nfoo: \\\n  bar\nbar:\n  echo\n")
    let justfile = parser.parse()
    #expect(justfile.functions.map(\.name) == ["f", "g"])
    #expect(justfile.functions.first?.parameters == ["a", "b"])
    #expect(
      justfile.functions.first?.body
        == .concatenation([.variable("a"), .concatenation([.literal("-"), .variable("b")])]),
      "\(String(describing: justfile.functions.first?.body))")
    #expect(justfile.recipes.first { $0.name == "foo" }?.dependencies.map(\.name) == ["bar"])
  }
}
