/// The tasks free to start, best first: explicit priority, then the longest remaining path
/// to a target (critical path), then file order. A binary heap: O(log n) per task.
struct ReadyQueue {
  private var heap: [Int] = []
  private let priority: [Int]
  private let height: [Int32]

  init(priority: [Int], height: [Int32]) {
    self.priority = priority
    self.height = height
  }

  var isEmpty: Bool { heap.isEmpty }
  /// The best task, left queued.
  var first: Int? { heap.first }
  var count: Int { heap.count }

  func before(_ a: Int, _ b: Int) -> Bool {
    if priority[a] != priority[b] { return priority[a] > priority[b] }
    if height[a] != height[b] { return height[a] > height[b] }
    return a < b
  }

  mutating func insert(_ task: Int) {
    heap.append(task)
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard before(heap[child], heap[parent]) else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  mutating func popFirst() -> Int? {
    guard let first = heap.first else { return nil }
    let last = heap.removeLast()
    guard !heap.isEmpty else { return first }
    heap[0] = last
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var best = parent
      if left < heap.count, before(heap[left], heap[best]) { best = left }
      if right < heap.count, before(heap[right], heap[best]) { best = right }
      if best == parent { break }
      heap.swapAt(parent, best)
      parent = best
    }
    return first
  }

  /// Removes and returns every queued task (used when the run stops).
  mutating func drain() -> [Int] {
    defer { heap.removeAll() }
    return heap
  }
}
