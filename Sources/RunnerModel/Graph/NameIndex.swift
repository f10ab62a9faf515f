/// Task indices by name: an open-addressing table of indices into the tasks, which hold the
/// names (a `[String: Int]` would store every name a second time: 50 MB for a million tasks,
/// 8 MB here).
struct NameIndex: Sendable {
  /// `slots[hash & mask]`, probed linearly: a task's index, or -1.
  private var slots: [Int32]
  private let mask: Int

  /// `names[i]` is task `i`'s name; of two tasks of one name the later is found.
  init<Names: RandomAccessCollection>(_ names: Names) where Names.Element == String, Names.Index == Int {
    var capacity = 8
    while capacity < names.count * 2 { capacity *= 2 }
    slots = [Int32](repeating: -1, count: capacity)
    mask = capacity - 1
    for index in names.indices {
      var slot = names[index].hashValue & mask
      while slots[slot] >= 0, names[Int(slots[slot])] != names[index] { slot = (slot + 1) & mask }
      slots[slot] = Int32(index)
    }
  }

  func index<Names: RandomAccessCollection>(of name: String, in names: Names) -> Int?
  where Names.Element == String, Names.Index == Int {
    var slot = name.hashValue & mask
    while slots[slot] >= 0 {
      let index = Int(slots[slot])
      if names[index] == name { return index }
      slot = (slot + 1) & mask
    }
    return nil
  }
}
