/// Task indices by name: an open-addressing table of indices into the tasks, which hold the
/// names (a `[String: Int]` would store every name a second time: 50 MB for a million tasks,
/// 8 MB here).
struct NameIndex: Sendable {
  /// `slots[hash & mask]`, probed linearly: a task's index, or -1.
  private var slots: [Int32]
  private let mask: Int

  /// Of two tasks of one name the later is found.
  init(_ tasks: [TaskDefinition]) {
    var capacity = 8
    while capacity < tasks.count * 2 { capacity *= 2 }
    var slots = [Int32](repeating: -1, count: capacity)
    mask = capacity - 1
    for index in tasks.indices {
      var slot = tasks[index].name.hashValue & mask
      while slots[slot] >= 0, tasks[Int(slots[slot])].name != tasks[index].name { slot = (slot + 1) & mask }
      slots[slot] = Int32(index)
    }
    self.slots = slots
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
}
