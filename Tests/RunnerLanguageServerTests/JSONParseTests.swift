import RunnerBasics
import Testing

/// The JSON reader a language client's messages go through.
struct JSONParseTests {
  @Test func valuesReadBackAsWritten() throws {
    let text = #"{"a": [1, -2.5, true, false, null, "x\"\\\/\n\u00e9\ud83d\ude00"], "b": {}, "c": [], "d": 1e3}"#
    let value = try JSONValue.parse(Array(text.utf8))
    #expect(value["a"]?.array?.count == 6)
    #expect(value["a"]?.array?[0] == .int(1))
    #expect(value["a"]?.array?[1] == .double(-2.5))
    #expect(value["a"]?.array?[5].string == "x\"\\/\né😀")
    #expect(value["b"] == .object([]))
    #expect(value["d"]?.integer == 1000)
    // What the server writes, it reads.
    #expect(try JSONValue.parse(Array(value.serialized().utf8)) == value)
  }

  @Test(arguments: [
    "", "{", "[1,]", "01", "-012", "{\"a\" 1}", "tru", "\"open", "1 2", "\"\u{1}\"", "[\"\\q\"]", "-", "{\"a\":}",
  ])
  func malformedTextIsAnErrorNotACrash(_ text: String) {
    #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(Array(text.utf8)) }
  }

  @Test func aLoneHighSurrogateLeavesTheNextEscapeAlone() throws {
    #expect(try JSONValue.parse(Array(#""\ud800\u0041""#.utf8)).string == "\u{FFFD}A")
    #expect(try JSONValue.parse(Array("0".utf8)) == .int(0))
    #expect(try JSONValue.parse(Array("-0.5".utf8)) == .double(-0.5))
  }

  @Test func deepNestingIsRefusedNotOverflowed() {
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(Array(deep.utf8)) }
  }
}
