/// Task indices by name: an open-addressing table of indices into the tasks, which hold the
/// names (a `[String: Int]` would store every name a second time: 50 MB for a million tasks,
/// 8 MB here).
struct NameIndex: Sendable {
  /// `slots[hash & mask]`, probed linearly: a task's index, or -1.
  private var slots: [Int32]
  private var mask: Int
  /// How many slots hold an index.
  private var count = 0

  /// An empty index, for tasks added one at a time (`insert(_:in:)`).
  init() {
    slots = [Int32](repeating: -1, count: 8)
    mask = 7
  }

  /// Of two tasks of one name the later is found.
  init(_ tasks: [TaskDefinition]) {
    var capacity = 8
    while capacity < tasks.count * 2 { capacity *= 2 }
    slots = [Int32](repeating: -1, count: capacity)
    mask = capacity - 1
    for index in tasks.indices { insert(index, in: tasks) }
  }

  /// Adds `tasks[index]`; a task of the same name already in the index is found no more.
  mutating func insert(_ index: Int, in tasks: [TaskDefinition]) {
    if (count + 1) * 2 > slots.count { grow(tasks) }
    let name = tasks[index].name
    var slot = name.hashValue & mask
    while slots[slot] >= 0 {
      if tasks[Int(slots[slot])].name == name {
        slots[slot] = Int32(index)
        return
      }
      slot = (slot + 1) & mask
    }
    slots[slot] = Int32(index)
    count += 1
  }

  func index(of name: String, in tasks: [TaskDefinition]) -> Int? {
    var slot = name.hashValue & mask
    while slots[slot] >= 0 {
      let index = Int(slots[slot])
      if tasks[index].name == name { return index }
      slot = (slot + 1) & mask
    }
    return nil
  }

  /// Twice the slots, every index placed again.
  private mutating func grow(_ tasks: [TaskDefinition]) {
    let old = slots
    slots = [Int32](repeating: -1, count: old.count * 2)
    mask = slots.count - 1
    for index in old where index >= 0 {
      var slot = tasks[Int(index)].name.hashValue & mask
      while slots[slot] >= 0 { slot = (slot + 1) & mask }
      slots[slot] = index
    }
  }
}
