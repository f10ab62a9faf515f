import Testing

@testable import RunnerExecution
@testable import RunnerProcess

@Suite struct OutputFileParserTests {
  private func parse(_ text: String) throws(OutputFileError) -> [String] {
    try OutputFileParser.parse(Array(text.utf8)).map { "\($0.key)=\($0.value)" }
  }

  @Test func keyValueLines() throws {
    #expect(try parse("a=1\nb=two words\n\nc=\n") == ["a=1", "b=two words", "c="])
    #expect(try parse("") == [])
    #expect(try parse("x=1") == ["x=1"])
  }

  @Test func valuesAreVerbatim() throws {
    let text = "cmd=$(rm -rf /); `x` && y\nurl=a=b=c\nsp=  padded  \nlooks=like<<heredoc\n"
    #expect(try parse(text) == ["cmd=$(rm -rf /); `x` && y", "url=a=b=c", "sp=  padded  ", "looks=like<<heredoc"])
    let injected = try OutputFileParser.parseDictionary(Array("v<<EOF\nb=2\nEOF\n".utf8))
    #expect(injected == ["v": "b=2"])
  }

  @Test func multiLineValues() throws {
    let text = "notes<<END\nline one\n\nline=three\nEND\nafter=1\nempty<<X\nX\n"
    #expect(try parse(text) == ["notes=line one\n\nline=three", "after=1", "empty="])
    // The delimiter must be the whole line.
    #expect(try parse("k<<E\nEE\n E\nE\n") == ["k=EE\n E"])
  }

  @Test func crlfIsTolerated() throws {
    #expect(try parse("a=1\r\nm<<EOF\r\nx\r\ny\r\nEOF\r\n\r\nb=2\r\n") == ["a=1", "m=x\ny", "b=2"])
  }

  @Test func laterKeysOverwrite() throws {
    #expect(try parse("a=1\nb=2\na=3\n") == ["a=3", "b=2"])
    #expect(try OutputFileParser.parseDictionary(Array("a=1\na=2".utf8)) == ["a": "2"])
  }

  @Test func keysAllowLettersDigitsUnderscoreDashDot() throws {
    #expect(try parse("A-b_c.9=ok\n") == ["A-b_c.9=ok"])
  }

  @Test func nonUTF8ValueIsReplaced() throws {
    let outputs = try OutputFileParser.parse([UInt8(ascii: "k"), UInt8(ascii: "="), 0xFF, UInt8(ascii: "x")])
    #expect(outputs.first?.value == "\u{FFFD}x")
  }

  @Test(arguments: [
    ("a=1\njunk\n", OutputFileError.malformedLine(line: 2)),
    ("bad key=1\n", .invalidKey("bad key", line: 1)),
    ("=1\n", .invalidKey("", line: 1)),
    ("a=1\r\nk$=1\n", .invalidKey("k$", line: 2)),
    ("ok=1\nk<<\n", .emptyDelimiter(line: 2)),
    ("a=1\nm<<EOF\nx\ny\n", .unterminatedValue(key: "m", delimiter: "EOF", line: 2)),
  ])
  func errorsNameTheLine(text: String, expected: OutputFileError) {
    #expect(throws: expected) { try OutputFileParser.parse(Array(text.utf8)) }
  }

  @Test func errorDescriptions() {
    #expect(OutputFileError.malformedLine(line: 4).description == "line 4: expected 'key=value' or 'key<<DELIMITER'")
    #expect(
      OutputFileError.unterminatedValue(key: "m", delimiter: "EOF", line: 2).description
        == "line 2: value of 'm' is never closed by a line 'EOF'")
  }

  @Test func valuesAreCappedAtOneMebibyte() throws {
    let limit = OutputFileParser.valueLimit
    let atLimit = "k=" + String(repeating: "x", count: limit)
    #expect(try OutputFileParser.parse(Array(atLimit.utf8)).first?.value.utf8.count == limit)
    #expect(throws: OutputFileError.valueTooLarge(key: "k", line: 1)) {
      try OutputFileParser.parse(Array((atLimit + "x").utf8))
    }
    let line = String(repeating: "y", count: 1023)
    let heredoc = "ok=1\nbig<<E\n" + Array(repeating: line, count: 1025).joined(separator: "\n") + "\nE\n"
    #expect(throws: OutputFileError.valueTooLarge(key: "big", line: 2)) {
      try OutputFileParser.parse(Array(heredoc.utf8))
    }
  }
}
