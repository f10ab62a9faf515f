import Testing

@testable import RunnerModel

/// A file of a million tasks holds a million `TaskDefinition`s, two million `Dependency`s and
/// a million `Command`s at once: their fields are ordered so that no padding is wasted.
@Suite struct TaskLayoutTests {
  @Test func theTaskAndItsListsHaveNoPadding() {
    #expect(MemoryLayout<RunnerModel.SourceLocation>.size == 12)
    #expect(MemoryLayout<TaskDefinition>.stride == 104)
    #expect(MemoryLayout<Dependency>.stride == 40)
    #expect(MemoryLayout<Command>.stride == 40)
  }
}
