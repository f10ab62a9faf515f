import Testing

@testable import RunnerModel

@Suite struct GraphTests {
  @Test func stagesAndCriticalPath() throws {
    let graph = try loadGraph(
      "tasks:\n  a: x\n  b: {deps: [a], run: x}\n  c: {deps: [a], run: x}\n  d: {deps: [b, c], run: x}\n  e: x\n")
    let selection = GraphSelection(graph: graph, targets: [])
    #expect(selection.stages.map { $0.map { graph[$0].name } } == [["a", "e"], ["b", "c"], ["d"]])
    #expect(selection.criticalPath.map { graph[$0].name } == ["a", "b", "d"])
    #expect(selection.height[0] == 3)
  }

  @Test func selectionTakesOnlyWhatTargetsNeed() throws {
    let graph = try loadGraph("tasks:\n  a: x\n  b: {deps: [a], run: x}\n  c: x\n")
    let selection = try GraphSelection(graph: graph, targetNames: ["b"])
    #expect(selection.members == [0, 1])
    #expect(throws: DiagnosticList.self) { try GraphSelection(graph: graph, targetNames: ["bb"]) }
  }

  @Test func defaultTargetsApplyWhenNoneAreNamed() throws {
    let graph = try loadGraph("default: [b]\ntasks:\n  a: x\n  b: x\n")
    #expect(try GraphSelection(graph: graph, targetNames: []).members == [1])
  }

  @Test func aSimpleCycleIsReportedWithEveryEdge() {
    let errors = loadErrors("tasks:\n  a: {deps: [b], run: x}\n  b: {deps: [c], run: x}\n  c: {deps: [a], run: x}\n")
    #expect(errors.count == 1)
    #expect(
      errors[0].description == """
        tasks.yml:2:14: error: dependency cycle: a -> b -> c -> a
        tasks.yml:2:14: note: 'a' depends on 'b' here
        tasks.yml:3:14: note: 'b' depends on 'c' here
        tasks.yml:4:14: note: 'c' depends on 'a' here
        note: removing 'a' from the deps of 'c' (tasks.yml:4:14) breaks this cycle
        """)
  }

  @Test func selfDependencyIsACycle() {
    let errors = loadErrors("tasks:\n  a: {deps: [a], run: x}\n")
    #expect(errors.first?.message == "dependency cycle: a -> a")
    #expect(errors.first?.notes.last?.message.contains("removing 'a' from its own deps") == true)
  }

  @Test func everyCycleIsReported() {
    let errors = loadErrors(
      "tasks:\n  a: {deps: [b]}\n  b: {deps: [a]}\n  c: {deps: [d]}\n  d: {deps: [c]}\n  e: {deps: [e]}\n  f: {deps: [a]}\n"
    )
    #expect(
      errors.map(\.message) == [
        "dependency cycle: a -> b -> a", "dependency cycle: c -> d -> c", "dependency cycle: e -> e",
      ])
  }

  @Test func interlockingCyclesSayWhetherOneEdgeBreaksThem() throws {
    // a <-> b and a <-> c: no single edge breaks both.
    let errors = loadErrors("tasks:\n  a: {deps: [b, c]}\n  b: {deps: [a]}\n  c: {deps: [a]}\n")
    #expect(errors.count == 1)
    #expect(errors[0].notes.contains { $0.message == "no single edge removal breaks every cycle among these tasks" })
    // a -> b -> c -> a plus a -> c: removing c -> a breaks both.
    let one = loadErrors("tasks:\n  a: {deps: [b, c]}\n  b: {deps: [c]}\n  c: {deps: [a]}\n")
    #expect(one[0].notes.last?.message.hasPrefix("removing 'a' from the deps of 'c'") == true)
  }

  @Test func longChainsDoNotOverflow() throws {
    var text = "tasks:\n  t0: x\n"
    for index in 1..<20_000 { text += "  t\(index): {deps: [t\(index - 1)], run: x}\n" }
    let graph = try loadGraph(text)
    let selection = GraphSelection(graph: graph, targets: [])
    #expect(selection.criticalPath.count == 20_000)
  }
}
