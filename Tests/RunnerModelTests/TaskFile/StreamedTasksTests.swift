import Testing

@testable import RunnerModel

/// The parser hands the `tasks` mapping's entries to the decoder one at a time; what the file
/// means must not change with it.
@Suite struct StreamedTasksTests {
  @Test func duplicateTasksNameTheirFirstPlaceInAMappingOfAnySize() {
    for count in [2, 40] {
      let tasks = (0..<count).map { "  t\($0): echo \($0)" }
      let text = "tasks:\n" + tasks.joined(separator: "\n") + "\n  t1: echo again\n"
      #expect(
        loadError(text) == "tasks.yml:\(count + 2):3: error: duplicate key 't1' (first defined at tasks.yml:3:3)")
    }
    #expect(
      loadError("tasks:\n  'a b': echo\n  ok: echo\n  'a b': echo\n")
        == "tasks.yml:4:3: error: duplicate key 'a b' (first defined at tasks.yml:2:3)")
  }

  @Test func mergedTasksComeAfterTheWrittenOnesWhichWin() throws {
    let graph = try loadGraph(
      """
      env: &more
        lint: echo merged lint
        docs: echo merged docs
      tasks:
        build: make
        <<: *more
        lint: echo my lint
      """)
    #expect(graph.tasks.map(\.name) == ["build", "lint", "docs"])
    #expect(graph.tasks.map(\.index) == [0, 1, 2])
    guard case .shell(let commands) = graph[1].action else {
      Issue.record("lint is not a shell task")
      return
    }
    #expect(commands.map(\.text) == ["echo my lint"])
  }

  @Test func anAnchoredTaskIsReusedByAlias() throws {
    let graph = try loadGraph(
      """
      tasks:
        a: &same
          run: echo same
          deps: [c]
        b: *same
        c: echo c
      """)
    #expect(graph.tasks.map(\.name) == ["a", "b", "c"])
    #expect(graph.dependencies[1].map { graph[$0].name } == ["c"])
  }

  @Test func errorsStayInFileOrderAroundTheTasks() {
    let errors = loadErrors(
      """
      version: 2
      tasks:
        a:
          run: echo a
          retries: many
      concurrency: lots
      """
    ).map(\.description)
    #expect(errors.count == 3)
    #expect(errors.map { $0.prefix(11) } == ["tasks.yml:1", "tasks.yml:5", "tasks.yml:6"])
  }

  @Test func theGraphFindsEveryTaskByName() throws {
    let names = (0..<3000).map { "task-\($0)" }
    let text =
      "tasks:\n"
      + names.enumerated().map { "  \($1): {deps: [\($0 == 0 ? "" : names[$0 - 1])]}" }
      .joined(separator: "\n")
    let graph = try loadGraph(text)
    for (index, name) in names.enumerated() {
      #expect(graph.index(of: name) == index)
      #expect(graph.dependents[index].map { $0 } == (index + 1 < names.count ? [index + 1] : []))
    }
    #expect(graph.index(of: "task-3000") == nil)
    #expect(graph.dependencies.edgeCount == names.count - 1)
  }

  /// The decoder's index of the tasks by name goes to the graph while the tasks are as decoded,
  /// and is let go by any change to them: a graph over changed tasks finds them where they are.
  @Test func theDecodersIndexHoldsOnlyForTheTasksAsDecoded() throws {
    let text = "tasks:\n  a: {deps: [b]}\n  b: echo b\n  c: {deps: [a]}\n"
    var file = try TaskFileLoader().outline(bytes: Array(text.utf8), path: "tasks.yml")
    #expect(file.names != nil)
    let graph = try TaskGraph(file: file)
    #expect(["a", "b", "c"].map { graph.index(of: $0) } == [0, 1, 2])
    #expect(graph.dependencies[0].map { $0 } == [1])
    // Swapped and renamed: kept, the old index would find no task `b` (its slot names `c`).
    file.tasks.swapAt(1, 2)
    #expect(file.names == nil)
    file.tasks[0].name = "x"
    file.tasks[1].dependencies = [Dependency(name: "x", location: file.tasks[1].location)]
    let changed = try TaskGraph(file: file)
    #expect(["x", "c", "b", "a"].map { changed.index(of: $0) } == [0, 1, 2, nil])
    #expect(changed.dependencies[0].map { changed[$0].name } == ["b"])
    #expect(changed.dependencies[1].map { changed[$0].name } == ["x"])
  }
}
