import Testing

@testable import RunnerModel

/// The table of task indices by name that the graph and the parser's duplicate check use.
@Suite struct NameIndexTests {
  func tasks(_ names: [String]) -> [TaskDefinition] {
    names.enumerated().map {
      TaskDefinition(name: $1, location: SourceLocation(file: "t.yml", line: $0 + 1, column: 3), index: $0)
    }
  }

  @Test func namesAddedOneAtATimeAreFoundAndOthersAreNot() {
    let all = tasks((0..<5000).map { "task-\($0)" })
    var index = NameIndex()
    for position in all.indices {
      index.insert(position, in: all)
      // Found at every size the table passes through, as it grows.
      #expect(index.index(of: all[position].name, in: all) == position)
      #expect(index.index(of: "task-\(position + 1)", in: all) == nil)
    }
    #expect(all.indices.allSatisfy { index.index(of: all[$0].name, in: all) == $0 })
    #expect(index.index(of: "missing", in: all) == nil)
    #expect(index.index(of: "", in: all) == nil)
    #expect(NameIndex(all).index(of: "task-4321", in: all) == 4321)
  }

  @Test func ofTwoTasksOfOneNameTheLaterIsFound() {
    let all = tasks(["a", "b", "a", "c", "b"])
    #expect(NameIndex(all).index(of: "a", in: all) == 2)
    #expect(NameIndex(all).index(of: "b", in: all) == 4)
    var index = NameIndex()
    for position in all.indices { index.insert(position, in: all) }
    #expect(index.index(of: "a", in: all) == 2)
    #expect(index.index(of: "c", in: all) == 3)
  }

  @Test func anIndexFarPastTheCountStillFitsItsSlot() {
    // Only the last of many tasks indexed: the table grows for the index, not the count.
    let all = tasks((0..<3000).map { "n\($0)" })
    var index = NameIndex()
    index.insert(2999, in: all)
    index.insert(5, in: all)
    #expect(index.index(of: "n2999", in: all) == 2999)
    #expect(index.index(of: "n5", in: all) == 5)
    #expect(index.index(of: "n6", in: all) == nil)
  }

  @Test func anIndexSizedForFarMoreTasksThanItHoldsIsSparse() {
    let all = tasks((0..<5000).map { "t\($0)" })
    var guessed = NameIndex(expecting: 5000)
    for position in 0..<10 { guessed.insert(position, in: all) }
    #expect(guessed.isSparse)
    for position in 10..<all.count { guessed.insert(position, in: all) }
    #expect(!guessed.isSparse)
    #expect(guessed.index(of: "t4999", in: all) == 4999)
    #expect(!NameIndex(all).isSparse)
    #expect(!NameIndex().isSparse)
  }
}
