/// Task indices by name: an open-addressing table of indices into the tasks, which hold the
/// names (a `[String: Int]` would store every name a second time: 50 MB for a million tasks,
/// 8 MB here).
///
/// A slot holds a task's index in its low bits (as many as the table has slots: an index is
/// less than half of them) and, in the bits above, a few bits of the name's hash: most probes
/// that do not match are told apart there, without reading the task (a cache miss in a large
/// file), and a name not in the index (each new key of the file) is mostly found absent so.
struct NameIndex: Sendable {
  private static let empty = UInt32.max
  private var slots: [UInt32]
  /// log2 of the slots' count: the bits of a slot that hold the index.
  private var shift: Int
  /// How many slots hold an index.
  private var count = 0

  /// An empty index, for tasks added one at a time (`insert(_:in:)`), with room for
  /// `expected` of them before it grows (each growth hashes every name again).
  init(expecting expected: Int = 0) {
    var capacity = 8
    while capacity < expected * 2 { capacity *= 2 }
    slots = [UInt32](repeating: Self.empty, count: capacity)
    shift = capacity.trailingZeroBitCount
  }

  /// Of two tasks of one name the later is found.
  init(_ tasks: [TaskDefinition]) {
    var capacity = 8
    while capacity < tasks.count * 2 { capacity *= 2 }
    slots = [UInt32](repeating: Self.empty, count: capacity)
    shift = capacity.trailingZeroBitCount
    for index in tasks.indices { insert(index, in: tasks) }
  }

  private var mask: Int { slots.count - 1 }

  /// More than four times the slots its names need (one made for a guessed count): not worth
  /// keeping beside the tasks for a whole run.
  var isSparse: Bool { slots.count > 8 * max(count, 4) }

  /// The bits of `hash` kept beside an index: its highest, which do not choose the slot.
  private func tag(_ hash: Int) -> UInt32 {
    shift >= 32 ? 0 : UInt32(truncatingIfNeeded: UInt64(bitPattern: Int64(hash)) >> UInt64(32 + shift))
  }

  /// Adds `tasks[index]`; a task of the same name already in the index is found no more.
  mutating func insert(_ index: Int, in tasks: [TaskDefinition]) {
    // An index must leave the slot's top index bit clear (an empty slot is all ones).
    while (count + 1) * 2 > slots.count || index * 2 >= slots.count { grow(tasks) }
    let name = tasks[index].name
    let hash = name.hashValue
    let tag = tag(hash)
    let entry = tag << shift | UInt32(index)
    var slot = hash & mask
    while slots[slot] != Self.empty {
      if slots[slot] >> shift == tag, tasks[Int(slots[slot] & UInt32(mask))].name == name {
        slots[slot] = entry
        return
      }
      slot = (slot + 1) & mask
    }
    slots[slot] = entry
    count += 1
  }

  func index(of name: String, in tasks: [TaskDefinition]) -> Int? {
    let hash = name.hashValue
    let tag = tag(hash)
    var slot = hash & mask
    while slots[slot] != Self.empty {
      if slots[slot] >> shift == tag {
        let index = Int(slots[slot] & UInt32(mask))
        if tasks[index].name == name { return index }
      }
      slot = (slot + 1) & mask
    }
    return nil
  }

  /// Twice the slots, every index placed again.
  private mutating func grow(_ tasks: [TaskDefinition]) {
    let old = slots
    let oldMask = UInt32(mask)
    slots = [UInt32](repeating: Self.empty, count: old.count * 2)
    shift += 1
    for entry in old where entry != Self.empty {
      let index = entry & oldMask
      let hash = tasks[Int(index)].name.hashValue
      var slot = hash & mask
      while slots[slot] != Self.empty { slot = (slot + 1) & mask }
      slots[slot] = tag(hash) << shift | index
    }
  }
}
