/// A task's short list (its `deps`, its `run`), kept in a chunk that many lists share.
///
/// An `Array` is a heap object of its own: 32 bytes of header before the elements, for every
/// task's `deps` and every task's `run`, 64 bytes a task in a generated file of a million. The
/// decoder packs the lists it reads one after another into chunks of 1 024 elements
/// (`Packer`); a list is the chunk, where it starts and how long it is (16 bytes).
///
/// A value like an array. A chunk is written in two ways only: by its `Packer`, past the
/// elements it has handed out, and by a list that is the chunk's only owner and holds all of
/// it (its element writes and appends, in place). So a list never sees another's writes: a
/// change to a list that shares its chunk copies the list into a chunk of its own first.
/// Appends and element writes then go in place, as an array's do; other changes (insert,
/// remove) copy the list.
public struct PackedList<Element> {
  /// The `PackedChunk<Element>`, or `emptyList` when the list is empty. Not an optional: a
  /// plain reference leaves the pointer's spare bits free, so `TaskAction` keeps its case in
  /// them (16 bytes, where an optional made it 24).
  @usableFromInline var storage: AnyObject
  @usableFromInline var start: UInt32
  @usableFromInline var length: UInt32

  public init() {
    storage = emptyList
    start = 0
    length = 0
  }

  @usableFromInline init(chunk: PackedChunk<Element>, start: Int, length: Int) {
    self.storage = length == 0 ? emptyList : chunk
    self.start = UInt32(start)
    self.length = UInt32(length)
  }

  /// The chunk that holds the elements; nil when there are none.
  @inlinable var chunk: PackedChunk<Element>? {
    length == 0 ? nil : unsafeDowncast(storage, to: PackedChunk<Element>.self)
  }

  /// The elements in a chunk of their own, of exactly their number.
  public init<S: Sequence>(_ elements: S) where S.Element == Element {
    let elements = Array(elements)
    guard !elements.isEmpty else {
      self.init()
      return
    }
    let chunk = PackedChunk<Element>.make(capacity: elements.count)
    chunk.append(contentsOf: elements)
    self.init(chunk: chunk, start: 0, length: elements.count)
  }

  /// Packs lists one after another into shared chunks. A list longer than a quarter of a
  /// chunk gets one of its own.
  package struct Packer {
    private var chunk: PackedChunk<Element>?
    private let chunkCapacity: Int

    package init(chunkCapacity: Int = 1024) { self.chunkCapacity = chunkCapacity }

    package mutating func pack<C: Collection>(_ elements: C) -> PackedList where C.Element == Element {
      let count = elements.count
      guard count > 0 else { return PackedList() }
      guard count <= chunkCapacity / 4 else { return PackedList(elements) }
      if chunk.map({ $0.room < count }) ?? true {
        chunk = PackedChunk<Element>.make(capacity: chunkCapacity)
      }
      let chunk = chunk!
      let start = chunk.used
      chunk.append(contentsOf: elements)
      return PackedList(chunk: chunk, start: start, length: count)
    }
  }
}

extension PackedList: RandomAccessCollection, MutableCollection {
  public typealias Indices = Range<Int>

  // Written out and inlinable: the defaults, called from another module, ran unspecialized
  // (a generic metadata lookup for each `count`).
  @inlinable public var startIndex: Int { 0 }
  @inlinable public var endIndex: Int { Int(length) }
  @inlinable public var count: Int { Int(length) }
  @inlinable public var isEmpty: Bool { length == 0 }
  @inlinable public var indices: Range<Int> { 0..<Int(length) }
  @inlinable public func index(after i: Int) -> Int { i + 1 }
  @inlinable public func index(before i: Int) -> Int { i - 1 }
  @inlinable public func index(_ i: Int, offsetBy distance: Int) -> Int { i + distance }
  @inlinable public func distance(from start: Int, to end: Int) -> Int { end - start }

  @inlinable public subscript(position: Int) -> Element {
    get {
      precondition(position >= 0 && position < Int(length), "PackedList index out of range")
      return unsafeDowncast(storage, to: PackedChunk<Element>.self).withUnsafeMutablePointerToElements {
        $0[Int(start) + position]
      }
    }
    set {
      precondition(position >= 0 && position < Int(length), "PackedList index out of range")
      makeOwn(minimumCapacity: Int(length))
      unsafeDowncast(storage, to: PackedChunk<Element>.self).withUnsafeMutablePointerToElements {
        $0[position] = newValue
      }
    }
  }
}

extension PackedList: RangeReplaceableCollection {
  public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C)
  where C.Element == Element {
    precondition(subrange.lowerBound >= 0 && subrange.upperBound <= Int(length), "PackedList range out of bounds")
    if subrange.isEmpty, subrange.lowerBound == Int(length) {
      append(contentsOf: newElements)
      return
    }
    var elements = Array(self)
    elements.replaceSubrange(subrange, with: newElements)
    self = PackedList(elements)
  }

  public mutating func append(_ element: Element) {
    makeRoom(for: Int(length) + 1)
    ownChunk.append(contentsOf: CollectionOfOne(element))
    length += 1
  }

  public mutating func append<S: Sequence>(contentsOf newElements: S) where S.Element == Element {
    let added = Array(newElements)
    guard !added.isEmpty else { return }
    makeRoom(for: Int(length) + added.count)
    ownChunk.append(contentsOf: added)
    length += UInt32(added.count)
  }

  public mutating func reserveCapacity(_ minimumCapacity: Int) { makeOwn(minimumCapacity: minimumCapacity) }

  /// Makes the list its chunk's only owner with room for `total` elements, doubling as an
  /// array does when it must move.
  private mutating func makeRoom(for total: Int) {
    if !ownsTail() || ownChunk.limit < total { makeOwn(minimumCapacity: Swift.max(total, 2 * Int(length))) }
  }

  /// The chunk, once `makeOwn` has made the list hold one (also while it is empty).
  private var ownChunk: PackedChunk<Element> { unsafeDowncast(storage, to: PackedChunk<Element>.self) }

  /// True when the list may write to its chunk: it is the chunk's only owner and holds all of
  /// it (an empty list holds a chunk of its own after `reserveCapacity`).
  private mutating func ownsTail() -> Bool {
    guard storage !== emptyList else { return false }
    // Asked of the chunk's own type: asked of an `AnyObject`, it said no for a sole reference
    // too, and 10 000 appends copied the list at each (`appendsToAnOwnListGrowInPlace`).
    var chunk = ownChunk
    storage = emptyList
    defer { storage = chunk }
    return isKnownUniquelyReferenced(&chunk) && start == 0 && Int(length) == chunk.used
  }

  /// Makes the list the only owner of a chunk that holds only it.
  @usableFromInline mutating func makeOwn(minimumCapacity: Int) {
    let owned = ownsTail()
    if owned, ownChunk.limit >= minimumCapacity { return }
    let own = PackedChunk<Element>.make(capacity: Swift.max(minimumCapacity, Int(length), 1))
    if owned {
      // The only owner: the elements move, nothing is retained or released.
      own.moveAll(from: ownChunk)
    } else {
      own.append(contentsOf: self)
    }
    storage = own
    start = 0
  }
}

extension PackedList: ExpressibleByArrayLiteral {
  public init(arrayLiteral elements: Element...) { self.init(elements) }
}

extension PackedList: Equatable where Element: Equatable {
  public static func == (lhs: PackedList, rhs: PackedList) -> Bool { lhs.elementsEqual(rhs) }
}

extension PackedList: Hashable where Element: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(length)
    for element in self { hasher.combine(element) }
  }
}

// Unchecked: the standard library makes `ManagedBuffer` non-Sendable, and `PackedChunk` with
// it. A list only reads its own range, which nothing writes again (above).
extension PackedList: @unchecked Sendable where Element: Sendable {}

extension PackedList: CustomStringConvertible, CustomDebugStringConvertible {
  public var description: String { Array(self).description }
  public var debugDescription: String { Array(self).debugDescription }
}

/// Elements in order; how many are written and the room for more are in the header. A list
/// reads only its own range, which nothing writes while another list or copy holds the chunk
/// (see `PackedList`), so lists on several threads may share a chunk while a `Packer` on one
/// thread fills the rest.
@usableFromInline final class PackedChunk<Element>: ManagedBuffer<PackedChunkHeader, Element> {
  static func make(capacity: Int) -> PackedChunk {
    let buffer = create(minimumCapacity: capacity) { _ in PackedChunkHeader(used: 0, limit: capacity) }
    return unsafeDowncast(buffer, to: PackedChunk.self)
  }

  /// The elements written.
  var used: Int { header.used }
  /// The elements it has room for in all.
  var limit: Int { header.limit }
  var room: Int { header.limit - header.used }

  func append<C: Collection>(contentsOf elements: C) where C.Element == Element {
    withUnsafeMutablePointers { header, base in
      // Checked and counted at each element, not from `count`: `used` always names exactly
      // the elements written, whatever the collection does.
      for element in elements {
        precondition(header.pointee.used < header.pointee.limit, "PackedChunk is full")
        (base + header.pointee.used).initialize(to: element)
        header.pointee.used += 1
      }
    }
  }

  /// Moves every element of `other` (which must have no other owner) to the end of this one.
  func moveAll(from other: PackedChunk) {
    other.withUnsafeMutablePointers { otherHeader, otherBase in
      withUnsafeMutablePointers { header, base in
        let count = otherHeader.pointee.used
        precondition(header.pointee.limit - header.pointee.used >= count, "PackedChunk is full")
        (base + header.pointee.used).moveInitialize(from: otherBase, count: count)
        header.pointee.used += count
        otherHeader.pointee.used = 0
      }
    }
  }

  deinit {
    _ = withUnsafeMutablePointers { header, base in base.deinitialize(count: header.pointee.used) }
  }
}

/// What every empty list holds: one object for them all, never read.
@usableFromInline let emptyList = EmptyList()
@usableFromInline final class EmptyList: Sendable {}

@usableFromInline struct PackedChunkHeader {
  var used: Int
  let limit: Int
}
