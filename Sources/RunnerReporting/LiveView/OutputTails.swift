import Glibc

/// What the live view keeps of each task's output: its last lines, within a budget per task and
/// one for the run. A task that prints more loses its oldest lines (the view says how many);
/// past the run's budget, tasks that ended keep only their last `keptWhenOver` bytes, the
/// earliest-ended first.
struct OutputTails {
  struct Tail {
    var bytes: [UInt8] = []
    /// Lines in `bytes` (each ends in a newline).
    var lines = 0
    /// Lines dropped from the front.
    var dropped = 0
  }

  let perTask: Int
  let budget: Int
  static let keptWhenOver = 16 << 10
  private(set) var tails: [Int: Tail] = [:]
  private(set) var size = 0
  /// Tasks that ended, in that order: the first to give up their bytes.
  private var ended: [Int] = []
  private var trimmed = 0

  init(perTask: Int = 2 << 20, budget: Int = 128 << 20) {
    self.perTask = perTask
    self.budget = budget
  }

  /// Appends whole lines (each ending in a newline).
  mutating func append(_ task: Int, _ bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
    let lines = Self.newlines(base, bytes.count)
    size += bytes.count
    let limit = perTask
    // In place: the dictionary's storage is not copied.
    size -= modify(task) { tail in
      tail.bytes.append(contentsOf: bytes)
      tail.lines += lines
      return tail.bytes.count > limit ? Self.keep(&tail, limit / 2) : 0
    }
    if size > budget { shrink() }
  }

  /// The task ended: its bytes may go first when the run's budget is spent.
  mutating func end(_ task: Int) {
    if tails[task] != nil { ended.append(task) }
  }

  @discardableResult
  private mutating func modify<T>(_ task: Int, _ body: (inout Tail) -> T) -> T {
    body(&tails[task, default: Tail()])
  }

  /// Keeps about the last `count` bytes, from the start of a line.
  ///
  /// - Returns: the bytes dropped.
  private static func keep(_ tail: inout Tail, _ count: Int) -> Int {
    guard tail.bytes.count > count else { return 0 }
    var cut = tail.bytes.count - count
    while cut < tail.bytes.count, tail.bytes[cut - 1] != 0x0A { cut += 1 }
    let gone = tail.bytes[..<cut].withUnsafeBytes { Self.newlines($0.baseAddress!, cut) }
    // A new array: removing from the front would keep the old capacity, and the budget would
    // bound only the count.
    tail.bytes = Array(tail.bytes[cut...])
    tail.lines -= gone
    tail.dropped += gone
    return cut
  }

  private mutating func shrink() {
    while size > budget, trimmed < ended.count {
      let task = ended[trimmed]
      trimmed += 1
      guard tails[task] != nil else { continue }
      size -= modify(task) { Self.keep(&$0, Self.keptWhenOver) }
    }
    // Running tasks alone over budget: each keeps half.
    if size > budget {
      for task in Array(tails.keys) { size -= modify(task) { Self.keep(&$0, $0.bytes.count / 2) } }
    }
  }

  /// Calls `body` with each of at most `count` lines from line `first` (0: the oldest kept),
  /// without its newline.
  func forEachLine(of task: Int, from first: Int, count: Int, _ body: (UnsafeRawBufferPointer) -> Void) {
    guard let tail = tails[task], count > 0, first < tail.lines else { return }
    tail.bytes.withUnsafeBytes { bytes in
      let base = bytes.baseAddress!
      var start = 0
      var line = 0
      // Lines near the end are found from the end: a follow frame reads only what it shows.
      if first > tail.lines / 2 {
        var position = bytes.count - 1
        var back = tail.lines - first
        while position > 0 {
          if bytes[position - 1] == 0x0A {
            back -= 1
            if back == 0 { break }
          }
          position -= 1
        }
        start = back == 0 ? position : 0
        line = back == 0 ? first : 0
      }
      while start < bytes.count, line < first + count {
        let end = memchr(base + start, 0x0A, bytes.count - start).map { base.distance(to: UnsafeRawPointer($0)) }!
        if line >= first { body(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) }
        start = end + 1
        line += 1
      }
    }
  }

  /// Lines kept of the task's output, and lines dropped before them.
  func count(of task: Int) -> (kept: Int, dropped: Int) {
    guard let tail = tails[task] else { return (0, 0) }
    return (tail.lines, tail.dropped)
  }

  static func newlines(_ base: UnsafeRawPointer, _ count: Int) -> Int {
    var found = 0
    var position = 0
    while position < count, let hit = memchr(base + position, 0x0A, count - position) {
      found += 1
      position = base.distance(to: UnsafeRawPointer(hit)) + 1
    }
    return found
  }
}
