import Testing

@testable import RunnerLanguageServer

/// Positions between runner's (1-based, characters) and the protocol's (0-based, UTF-16), and
/// the YAML context a position is in.
struct DocumentTextTests {
  @Test func columnsBecomeUTF16Characters() {
    let text = DocumentText("a: 'é😀' x\r\nb: y\n")
    #expect(text.character(line: 0, column: 8) == 8)  // after é (1 unit) and 😀 (2 units)
    #expect(text.line(0) == "a: 'é😀' x")
    #expect(text.wordRange(line: 1, column: 4) == (3, 4))
    #expect(text.prefix(line: 0, character: 6) == "a: 'é😀")
  }

  @Test func theKeysAboveALineAreItsPath() {
    let text = DocumentText(
      """
      tasks:
        build:
          deps:
            - lint
          # a comment
          run: make
      """)
    #expect(text.keyPath(line: 3) == ["tasks", "build", "deps"])
    #expect(text.keyPath(line: 5) == ["tasks", "build"])
    #expect(text.keyPath(line: 0) == [])
    #expect(text.word(line: 3, character: 9) == "lint")
    #expect(text.word(line: 1, character: 4) == "build")
  }

  @Test func fileURIsAndPathsRoundTrip() {
    #expect(FileURI.path("file:///tmp/a%20b/c.yml") == "/tmp/a b/c.yml")
    #expect(FileURI.uri("/tmp/a b/./c.yml") == "file:///tmp/a%20b/c.yml")
    #expect(FileURI.path("file://localhost/x/../y.yml") == "/y.yml")
    #expect(FileURI.path("untitled:1") == nil)
  }
}
