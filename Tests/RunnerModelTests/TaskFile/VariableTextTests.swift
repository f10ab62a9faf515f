import Testing

@testable import RunnerModel

@Suite struct VariableTextTests {
  /// The error `text` fails with, or nil if it parses.
  func failure(_ text: String) -> VariableTextError? {
    do {
      _ = try VariableText.parse(text[...])
      return nil
    } catch {
      return error
    }
  }

  @Test func referencesSplitTheText() throws {
    let text = try VariableText.parse("a ${B} c${D_1}")
    #expect(text.parts == [.literal("a "), .variable("B"), .literal(" c"), .variable("D_1")])
    #expect(text.variables == ["B", "D_1"])
    #expect(text.render { ["B": "x", "D_1": "y"][$0] } == "a x cy")
  }

  @Test func aMissingVariableRendersEmpty() throws {
    #expect(try VariableText.parse("<${NOPE}>").render { _ in nil } == "<>")
  }

  @Test func doubledDollarIsALiteralOpener() throws {
    let text = try VariableText.parse("$${X} and $$y")
    #expect(text.parts == [.literal("${X} and $$y")])
    #expect(text.variables.isEmpty)
  }

  @Test func dollarWithoutBraceIsLiteral() throws {
    let source = "$HOME $(rm -rf ~) `x` 5$ $"
    #expect(try VariableText.parse(source[...]).parts == [.literal(source)])
  }

  @Test func expressionsStayLiteral() throws {
    let text = try VariableText.parse("${{ deps.a.outputs.b }}-${X}")
    #expect(text.parts == [.literal("${{ deps.a.outputs.b }}-"), .variable("X")])
    #expect(try VariableText.parse("${{ ${A} }}").parts == [.literal("${{ ${A} }}")])
    #expect(try VariableText.parse("x ${{ open").parts == [.literal("x ${{ open")])
  }

  @Test func adjacentLiteralsMerge() throws {
    #expect(try VariableText.parse("${A}${B}").parts == [.variable("A"), .variable("B")])
    let built = VariableText(parts: [.literal("a"), .literal(""), .literal("b"), .variable("C"), .literal("")])
    #expect(built.parts == [.literal("ab"), .variable("C")])
    #expect(VariableText(literal: "").parts.isEmpty)
    #expect(try VariableText.parse("") == VariableText(parts: []))
  }

  @Test func variablesAreListedOnceInOrder() throws {
    #expect(try VariableText.parse("${B}${A}${B}").variables == ["B", "A"])
  }

  @Test func offsetsAreRelativeToTheSubstring() {
    let whole = "key=ab${C"
    let value = whole[whole.index(whole.startIndex, offsetBy: 4)...]
    #expect(throws: VariableTextError(offset: 2, message: "'${' has no closing '}'")) {
      try VariableText.parse(value)
    }
  }

  @Test func unclosedReference() {
    #expect(failure("ab${C")?.offset == 2)
    #expect(failure("é€${")?.offset == 2)
    #expect(failure("ab${C")?.message.contains("closing '}'") == true)
  }

  @Test func invalidNames() {
    for text in ["${A B}", "${1X}", "${a.b}", "${ A}", "${é}"] {
      #expect(failure(text)?.offset == 0)
      #expect(failure(text)?.message.contains("invalid variable name") == true)
    }
    #expect(failure("x ${}") == VariableTextError(offset: 2, message: "'${}' has no variable name"))
  }

  @Test func defaultsAreRejectedWithAHint() throws {
    for text in ["${A:-x}", "${A-x}", "${A:=x}", "${A:?x}", "${A:+x}"] {
      let error = try #require(failure("-" + text))
      #expect(error.offset == 1)
      #expect(error.message.contains("defaults are not supported"))
      #expect(error.message.contains("env"))
    }
  }

  @Test func nameRule() {
    #expect(VariableText.isValidName("_a1"))
    #expect(VariableText.isValidName("A"))
    #expect(!VariableText.isValidName(""))
    #expect(!VariableText.isValidName("1a"))
    #expect(!VariableText.isValidName("a-b"))
  }
}
