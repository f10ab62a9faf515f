import Testing

@testable import RunnerModel

/// A file of a million tasks holds a million `TaskDefinition`s, two million `Dependency`s and
/// a million `Command`s at once: their fields are ordered so that no padding is wasted, and
/// the lists are packed (`PackedList`: 16 bytes, no heap object of their own).
@Suite struct TaskLayoutTests {
  @Test func theTaskAndItsListsHaveNoPadding() {
    #expect(MemoryLayout<RunnerModel.SourceLocation>.size == 8)
    #expect(MemoryLayout<TaskDefinition>.stride == 120)
    #expect(MemoryLayout<Dependency>.stride == 32)
    #expect(MemoryLayout<Command>.stride == 32)
    #expect(MemoryLayout<PackedList<Dependency>>.stride == 16)
    #expect(MemoryLayout<TaskAction>.stride == 16)
  }

  /// A location packs into one word; one too large for it (a generated file on one line, a
  /// huge file) comes back whole all the same, and equal locations stay equal.
  @Test func aLocationTooLargeForItsWordComesBackWhole() {
    let cases = [(1, 1), (268_435_455, 1_048_575), (268_435_456, 3), (7, 1_048_576), (4_000_000_000, 2_000_000_000)]
    for (line, column) in cases {
      let location = RunnerModel.SourceLocation(file: "big.yml", line: line, column: column)
      #expect(location.description == "big.yml:\(line):\(column)")
      let again = RunnerModel.SourceLocation(file: "big.yml", line: line, column: column)
      #expect(location == again && location.hashValue == again.hashValue)
      #expect(location != RunnerModel.SourceLocation(file: "other.yml", line: line, column: column))
    }
    let clamped = RunnerModel.SourceLocation(file: "big.yml", line: Int(UInt32.max) + 5, column: -1)
    #expect(clamped.line == Int(UInt32.max) && clamped.column == 0)
  }

  /// The fields kept out of line are set one at a time without losing the other, and count in
  /// equality.
  @Test func fieldsKeptOutOfLineKeepEachOther() {
    let here = RunnerModel.SourceLocation(file: "tasks.yml", line: 3, column: 5)
    var edge = Dependency(name: "build", location: here)
    let plain = edge
    edge.passesArguments = true
    edge.with = [ParamValue(name: "mode", value: Template(parts: [.literal("release")]), location: here)]
    #expect(edge.passesArguments && edge.with.map(\.name) == ["mode"])
    #expect(edge != plain && plain.with.isEmpty && !plain.passesArguments)
    edge.with = []
    edge.passesArguments = false
    #expect(edge == plain && edge.hashValue == plain.hashValue)

    var command = Command(text: "make", location: here, call: plain)
    command.ignoresError = true
    #expect(command.call == plain && command.ignoresError)
    command.call = nil
    #expect(command.call == nil && command.ignoresError)
    command.ignoresError = false
    #expect(command == Command(text: "make", location: here))
  }
}
