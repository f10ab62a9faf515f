import Testing

@testable import RunnerModel

/// Inputs the fuzzers (or the adversarial suite) found trouble with, kept as regressions.
@Suite struct FuzzRegressionTests {
  func load(_ text: String) -> DiagnosticList? {
    do {
      _ = try TaskFileLoader().load(bytes: Array(text.utf8), path: "tasks.yml")
      return nil
    } catch {
      return error
    }
  }

  /// libyaml scans flow collections in time quadratic in their depth: 80 000 `[` took over a
  /// minute. The parse now stops at the first collection past the depth limit (the error
  /// says so; without the limit libyaml would have scanned all 100 000 levels first).
  @Test(arguments: ["[", "{a: "])
  func deepFlowNestingStopsAtTheDepthLimit(opener: String) throws {
    let error = try #require(load("tasks:\n  a: {run: " + String(repeating: opener, count: 100_000) + "}\n"))
    #expect(error.description.contains("collections nest deeper than \(YAMLParser.maximumDepth) levels"))
    #expect(error.description.hasPrefix("tasks.yml:2:"))
  }

  @Test func nestingUpToTheLimitIsAccepted() throws {
    let depth = YAMLParser.maximumDepth - 3
    let value = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    let error = try #require(load("tasks:\n  a: {run: echo, sources: \(value)}\n"))
    #expect(!error.description.contains("nest deeper"))
  }
}
