import Testing

@testable import RunnerModel

@Suite struct DotEnvParserTests {
  /// Name and rendered value (variables shown as `<NAME>`) of each entry.
  func pairs(_ text: String) throws -> [String] {
    try DotEnvParser.parse(text).map { "\($0.name)=\($0.value.render { "<\($0)>" })" }
  }

  /// The error `text` fails with, or nil if it parses.
  func failure(_ text: String) -> DotEnvError? {
    do {
      _ = try DotEnvParser.parse(text)
      return nil
    } catch {
      return error
    }
  }

  @Test func commentsBlanksExportAndSpaces() throws {
    let text = "# comment\n\n  # indented\nexport A=1\nB = two  \n\tC=3 # note\nexport=4\n"
    #expect(
      try DotEnvParser.parse(text) == [
        DotEnvEntry(name: "A", value: VariableText(literal: "1"), line: 4),
        DotEnvEntry(name: "B", value: VariableText(literal: "two"), line: 5),
        DotEnvEntry(name: "C", value: VariableText(literal: "3"), line: 6),
        DotEnvEntry(name: "export", value: VariableText(literal: "4"), line: 7),
      ])
  }

  @Test func unquotedValues() throws {
    #expect(try pairs("A=a#b\nB= #gone\nC=\nD=x y\t\nE=it's \"q\"") == ["A=a#b", "B=", "C=", "D=x y", "E=it's \"q\""])
    #expect(try pairs("A=1") == ["A=1"])
    #expect(try pairs("") == [])
  }

  @Test func unquotedValuesExpand() throws {
    let entries = try DotEnvParser.parse("P=${ROOT}/bin:$PATH")
    #expect(entries.first?.value.parts == [.variable("ROOT"), .literal("/bin:$PATH")])
  }

  @Test func singleQuotesAreLiteral() throws {
    #expect(try pairs(#"A='${B} \n # x'  # comment"#) == [#"A=${B} \n # x"#])
    #expect(try DotEnvParser.parse("A='${B}'").first?.value.parts == [.literal("${B}")])
    #expect(try pairs("A=''") == ["A="])
  }

  @Test func quotedValuesSpanLines() throws {
    let entries = try DotEnvParser.parse("A='x\ny'\nB=\"1\n2\"\nC=3")
    #expect(entries.map(\.line) == [1, 3, 5])
    #expect(entries.map { $0.value.render { _ in nil } } == ["x\ny", "1\n2", "3"])
  }

  @Test func doubleQuotesEscapeAndExpand() throws {
    let entries = try DotEnvParser.parse(#"A="a\nb\t\"q\" \\ \$HOME \${X} \q ${Y}\r" # c"#)
    #expect(entries.first?.value.parts == [.literal("a\nb\t\"q\" \\ $HOME ${X} \\q "), .variable("Y"), .literal("\r")])
    #expect(try pairs(#"A="it's""#) == ["A=it's"])
  }

  @Test func duplicatesAreKeptInOrder() throws {
    #expect(try pairs("A=1\nA=2") == ["A=1", "A=2"])
  }

  @Test func windowsLineEndings() throws {
    let entries = try DotEnvParser.parse("A=1\r\n# c\r\nB=\"x\"\r\n")
    #expect(entries.map(\.line) == [1, 3])
    #expect(try pairs("A=1\r\n# c\r\nB=\"x\"\r\n") == ["A=1", "B=x"])
  }

  @Test func aLineWithoutEquals() {
    #expect(failure("A=1\nBAR\n") == DotEnvError(line: 2, column: 4, message: "expected '=' after 'BAR'"))
    #expect(failure("export A B=1")?.column == 10)
    #expect(failure("=x") == DotEnvError(line: 1, column: 1, message: "expected a variable name"))
  }

  @Test func invalidNames() {
    for text in ["A.B=1", "1A=x", "A-B=1", "é=1"] {
      #expect(failure(text).map { [$0.line, $0.column] } == [1, 1])
      #expect(failure(text)?.message.contains("invalid variable name") == true)
    }
    #expect(failure("\n  export x.y=1").map { [$0.line, $0.column] } == [2, 10])
  }

  @Test func unterminatedQuotesPointAtTheOpeningQuote() {
    #expect(failure("A=1\nB='abc\n") == DotEnvError(line: 2, column: 3, message: "unterminated single-quoted value"))
    #expect(failure("B = \"abc\\\"") == DotEnvError(line: 1, column: 5, message: "unterminated double-quoted value"))
  }

  @Test func onlyACommentMayFollowAClosingQuote() throws {
    #expect(failure("A=\"x\" y")?.column == 7)
    #expect(failure("A='x'y").map { [$0.line, $0.column] } == [1, 6])
    #expect(failure("A='x'y")?.message.contains("after the closing quote") == true)
    #expect(try pairs("A=\"x\"  # ok\nB='y'\t\nC='z'#c") == ["A=x", "B=y", "C=z"])
  }

  @Test func referenceErrorsPointAtTheDollar() throws {
    #expect(failure("A=x\nB=a ${C").map { [$0.line, $0.column] } == [2, 5])
    let error = try #require(failure("B=\"x\ny ${A:-d}\""))
    #expect([error.line, error.column] == [2, 3])
    #expect(error.message.contains("defaults are not supported"))
    #expect(failure(#"B="\n${A B}""#).map { [$0.line, $0.column] } == [1, 6])
  }
}
