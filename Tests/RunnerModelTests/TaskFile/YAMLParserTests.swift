import Testing

@testable import RunnerModel

@Suite struct YAMLParserTests {
  func parse(_ text: String, budget: Int = YAMLParser.defaultAliasBudget) throws(Diagnostic) -> YAMLNode? {
    var parser = YAMLParser(file: "f.yml")
    parser.aliasBudget = budget
    return try parser.parse(Array(text.utf8))
  }

  @Test func locationsAreOneBased() throws {
    let root = try #require(try parse("a:\n  b: [x, y]\n"))
    guard case .mapping(let entries) = root.kind, case .mapping(let inner) = entries[0].value.kind,
      case .sequence(let items) = inner[0].value.kind
    else { Issue.record("unexpected shape"); return }
    #expect(entries[0].key.location == SourceLocation(file: "f.yml", line: 1, column: 1))
    #expect(inner[0].key.location == SourceLocation(file: "f.yml", line: 2, column: 3))
    #expect(items[1].location == SourceLocation(file: "f.yml", line: 2, column: 10))
  }

  @Test func emptyStreamHasNoRoot() throws {
    #expect(try parse("") == nil)
    #expect(try parse("# only a comment\n") == nil)
  }

  @Test func duplicateKeysAreRejectedWithBothPlaces() {
    #expect(
      throws: Diagnostic.error(
        .duplicateKey("a", first: SourceLocation(file: "f.yml", line: 1, column: 1)),
        at: SourceLocation(file: "f.yml", line: 2, column: 1))
    ) {
      try parse("a: 1\na: 2\n")
    }
  }

  /// Small mappings are searched, large ones indexed: a duplicate is found on either side
  /// of the switch, and repeated merge keys stay allowed.
  @Test(arguments: [3, 15, 16, 17, 40])
  func duplicateKeysInMappingsOfAnySize(keys: Int) throws {
    let lines = (1...keys).map { "k\($0): \($0)" }
    #expect(
      throws: Diagnostic.error(
        .duplicateKey("k1", first: SourceLocation(file: "f.yml", line: 1, column: 1)),
        at: SourceLocation(file: "f.yml", line: keys + 1, column: 1))
    ) {
      try parse((lines + ["k1: again"]).joined(separator: "\n") + "\n")
    }
    #expect(
      throws: Diagnostic.error(
        .duplicateKey("k\(keys)", first: SourceLocation(file: "f.yml", line: keys, column: 1)),
        at: SourceLocation(file: "f.yml", line: keys + 2, column: 1))
    ) {
      try parse((lines + ["other: 1", "k\(keys): again"]).joined(separator: "\n") + "\n")
    }
    let merges = "base: &b {x: 1}\n" + lines.joined(separator: "\n") + "\n<<: *b\n<<: *b\n"
    #expect(throws: Never.self) { try parse(merges) }
  }

  @Test func quotedScalarsAreNotNull() throws {
    let root = try #require(try parse("a: ''\nb: ~\nc: null\n"))
    guard case .mapping(let entries) = root.kind else { Issue.record("not a mapping"); return }
    #expect(!entries[0].value.isNull)
    #expect(entries[1].value.isNull)
    #expect(entries[2].value.isNull)
  }

  @Test func mergeKeysKeepExplicitKeys() throws {
    let root = try #require(try parse("base: &b {x: 1, y: 2}\nt:\n  <<: *b\n  y: 3\n"))
    guard case .mapping(let entries) = root.kind, case .mapping(let merged) = entries[1].value.kind else {
      Issue.record("unexpected shape"); return
    }
    #expect(merged.map(\.name) == ["y", "x"])
    #expect(merged[0].value.scalar == "3")
  }

  @Test func recursiveAliasIsAnError() {
    #expect(throws: Diagnostic.self) { try parse("a: &a [*a]\n") }
    do {
      _ = try parse("a: &a [*a]\n")
    } catch {
      #expect(error.message.contains("recursive alias"))
    }
  }

  @Test func aliasBombStopsAtTheBudget() {
    var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
    for level in 1...9 {
      text += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
    }
    do {
      _ = try parse(text, budget: 100_000)
      Issue.record("the bomb was expanded")
    } catch {
      #expect(error.message.contains("alias bomb"))
    }
  }

  /// Only what aliases add counts: a file written out in full loads at any size.
  @Test func nodesWrittenOutAreNotLimited() throws {
    let text = "a: [" + Array(repeating: "x", count: 200_000).joined(separator: ", ") + "]\n"
    let root = try #require(try parse(text, budget: 1000))
    guard case .mapping(let entries) = root.kind, case .sequence(let items) = entries[0].value.kind else {
      Issue.record("unexpected shape")
      return
    }
    #expect(items.count == 200_000)
  }

  /// Aliases may add one node per byte of the file (at least the budget); past that, the
  /// error points at the alias that went over.
  @Test func aliasesMayAddOneNodePerByte() throws {
    let base = "b: &b [" + Array(repeating: "x", count: 100).joined(separator: ", ") + "]\n"
    let uses = (0..<20).map { "u\($0): *b\n" }.joined()
    // 20 aliases of 101 nodes (2 020) in a file of about 900 bytes: over, unless padded.
    let padding = "# " + String(repeating: "-", count: 3000) + "\n"
    #expect(try parse(padding + base + uses, budget: 10) != nil)
    do {
      _ = try parse(base + uses, budget: 10)
      Issue.record("the aliases were expanded past the file's size")
    } catch {
      #expect(error.message.contains("aliases expand the file by more than"), "\(error.message)")
      #expect(error.location?.line ?? 0 > 2, "at an alias: \(String(describing: error.location))")
      #expect(error.location?.column == 5)
    }
  }

  @Test func syntaxErrorsPointAtTheProblem() {
    do {
      _ = try parse("a: [1, 2\nb: 3\n")
      Issue.record("no error")
    } catch {
      #expect(error.message.hasPrefix("invalid YAML: "))
      #expect(error.location?.line ?? 0 >= 2)
    }
  }

  @Test func deepNestingDoesNotOverflow() throws {
    let depth = YAMLParser.maximumDepth
    let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    #expect(try parse(text) != nil)
    let deeper = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
    #expect(
      throws: Diagnostic.error(.tooDeep(limit: depth), at: SourceLocation(file: "f.yml", line: 1, column: depth + 1))
    ) {
      try parse(deeper)
    }
  }
}

@Suite struct YAMLContentTests {
  func content(_ text: String) -> [UInt8]? { YAMLParser.canonicalContent(Array(text.utf8)) }

  /// Comments, blank lines, indentation and flow or block layout are not content.
  @Test func layoutAndCommentsAreNotContent() {
    let base = content("tasks:\n  a: {run: x, deps: [b]}\n  b: y\n")
    #expect(base != nil)
    #expect(
      content("# top\ntasks:\n\n    a:   # the first\n      run: x\n      deps:\n        - b\n    b: y\n") == base)
  }

  /// Anything that can change meaning is content: a value, a key, a quoted scalar where a
  /// plain one stood (`"1"` against `1`, `"~"` against `~`), an anchor, the order of entries.
  @Test func everyChangeOfMeaningIsContent() {
    let base = content("tasks:\n  a: {run: x, deps: [b]}\n  b: y\n")
    for other in [
      "tasks:\n  a: {run: z, deps: [b]}\n  b: y\n",
      "tasks:\n  a: {run: x, deps: [b]}\n  c: y\n",
      "tasks:\n  a: {run: \"x\", deps: [b]}\n  b: y\n",
      "tasks:\n  a: {deps: [b], run: x}\n  b: y\n",
      "tasks:\n  a: &x {run: x, deps: [b]}\n  b: y\n",
      "tasks:\n  a: {run: x, deps: [b]}\n  b: y\n---\nother: 1\n",
    ] {
      #expect(content(other) != base, "\(other)")
    }
    #expect(content("tasks: [") == nil, "not well-formed")
  }
}

extension YAMLContentTests {
  /// What the loader refuses has no content: UTF-16 (which libyaml would read as the same
  /// events), bytes that are not UTF-8, nesting deeper than the loader allows.
  @Test func whatTheLoaderRefusesHasNoContent() {
    let text = "tasks:\n  a: x\n"
    #expect(content(text) != nil)
    let utf16: [UInt8] = [0xFF, 0xFE] + text.utf8.flatMap { byte -> [UInt8] in [byte, 0] }
    #expect(YAMLParser.canonicalContent(utf16) == nil)
    #expect(YAMLParser.canonicalContent(Array(text.utf8) + [0xC3]) == nil)
    #expect(content(String(repeating: "[", count: 300) + String(repeating: "]", count: 300)) == nil)
  }
}
