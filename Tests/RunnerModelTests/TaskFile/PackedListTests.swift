import Testing

@testable import RunnerModel

/// Lists packed into one chunk behave as arrays: each keeps its own elements whatever is done
/// to the others, and a change copies only the list changed. Serialized: two tests count
/// `Tracked` instances in one shared counter.
@Suite(.serialized) struct PackedListTests {
  /// Counts its live instances, so a test sees elements released exactly once.
  final class Tracked: Equatable, @unchecked Sendable {
    nonisolated(unsafe) static var live = 0
    let value: Int
    init(_ value: Int) {
      self.value = value
      Self.live += 1
    }
    deinit { Self.live -= 1 }
    static func == (lhs: Tracked, rhs: Tracked) -> Bool { lhs.value == rhs.value }
  }

  @Test func listsPackedTogetherKeepTheirOwnElements() {
    var packer = PackedList<String>.Packer(chunkCapacity: 8)
    let first = packer.pack(["a", "b"])
    var second = packer.pack(["c"])
    let third = packer.pack(["d", "e"])
    #expect(first.chunk === second.chunk && second.chunk === third.chunk)
    #expect(Array(first) == ["a", "b"] && Array(second) == ["c"] && Array(third) == ["d", "e"])

    second.append("c2")
    second[0] = "C"
    #expect(Array(second) == ["C", "c2"])
    #expect(second.chunk !== first.chunk)
    #expect(Array(first) == ["a", "b"] && Array(third) == ["d", "e"])

    var copy = third
    copy.remove(at: 0)
    #expect(Array(copy) == ["e"] && Array(third) == ["d", "e"])
  }

  @Test func aFullChunkStartsAnotherAndALongListGetsItsOwn() {
    var packer = PackedList<Int>.Packer(chunkCapacity: 8)
    let lists = (0..<10).map { packer.pack([$0, $0 + 100]) }
    #expect(lists.enumerated().allSatisfy { Array($1) == [$0, $0 + 100] })
    #expect(lists[0].chunk === lists[3].chunk && lists[3].chunk !== lists[4].chunk)
    let long = packer.pack(Array(0..<3))
    #expect(Array(long) == [0, 1, 2] && long.chunk !== lists[9].chunk)
    #expect(packer.pack([Int]()).isEmpty && packer.pack([Int]()).chunk == nil)
  }

  /// A list that owns its chunk grows in place, as an array does: 10 000 appends move it to a
  /// larger chunk about 14 times, not at every append.
  @Test func appendsToAnOwnListGrowInPlace() {
    var list: PackedList<Int> = []
    var moves = 0
    for value in 0..<10_000 {
      // Its identity, not a reference: a reference held here would make every append copy.
      let before = list.chunk.map(ObjectIdentifier.init)
      list.append(value)
      if list.chunk.map(ObjectIdentifier.init) != before { moves += 1 }
    }
    #expect(moves <= 16)
    #expect(list.count == 10_000 && list.last == 9_999 && list.reduce(0, +) == 49_995_000)
  }

  /// Capacity reserved for an empty list is kept for its appends, and a list that owns its
  /// chunk moves its elements when it grows: each element stays one instance.
  @Test func reservedCapacityIsUsedAndGrowthMoves() {
    var list = PackedList<Int>()
    list.reserveCapacity(64)
    let reserved = list.chunk.map(ObjectIdentifier.init) ?? ObjectIdentifier(list.storage)
    for value in 0..<64 { list.append(value) }
    #expect(list.chunk.map(ObjectIdentifier.init) == reserved && Array(list) == Array(0..<64))

    Tracked.live = 0
    do {
      var tracked = PackedList<Tracked>()
      for value in 0..<100 { tracked.append(Tracked(value)) }
      let copy = tracked
      tracked.append(Tracked(100))
      #expect(tracked.map(\.value) == Array(0...100) && copy.map(\.value) == Array(0..<100))
      #expect(Tracked.live == 101)
    }
    #expect(Tracked.live == 0)
  }

  @Test func everyElementIsReleasedOnce() {
    Tracked.live = 0
    do {
      var packer = PackedList<Tracked>.Packer(chunkCapacity: 4)
      var lists = (0..<5).map { packer.pack([Tracked($0)]) }
      lists[1][0] = Tracked(10)
      lists[2].append(Tracked(20))
      lists[3].removeAll()
      #expect(lists.map { $0.map(\.value) } == [[0], [10], [2, 20], [], [4]])
    }
    #expect(Tracked.live == 0)
  }

  @Test func equalityHashingAndPrintingAreTheElements() {
    var packer = PackedList<String>.Packer()
    let packed = packer.pack(["x", "y"])
    let own: PackedList<String> = ["x", "y"]
    #expect(packed == own && packed.hashValue == own.hashValue)
    #expect(packed != ["x"] && packed.description == ["x", "y"].description)
    #expect(PackedList<String>() == [] && PackedList<String>().isEmpty)
  }
}
