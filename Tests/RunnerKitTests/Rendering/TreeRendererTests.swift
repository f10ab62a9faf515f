import Testing

@testable import RunnerModel
@testable import RunnerRendering

@Suite struct TreeRendererTests {
  /// A chain of 20 000 tasks draws without overflowing the stack.
  @Test func longChainsDoNotOverflow() throws {
    var text = "tasks:\n  t0: x\n"
    for index in 1..<20_000 { text += "  t\(index): {deps: [t\(index - 1)], run: x}\n" }
    let graph = try TaskFileLoader().load(bytes: Array(text.utf8), path: "tasks.yml")
    let selection = GraphSelection(graph: graph, targets: [])
    #expect(TreeRenderer().render(selection).split(separator: "\n").count >= 20_000)
  }
}
