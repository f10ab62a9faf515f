import Glibc

/// The live status line at the bottom of a terminal: `[12/40] 3 running: build, lint · 00:14`.
///
/// Everything the console writes first clears it and then redraws it, in the same write, so
/// task output never interleaves with it and a line is never torn. Plain (non-TTY) output
/// has no status area.
struct StatusArea {
  let total: Int
  let start: ContinuousClock.Instant
  private(set) var finished = 0
  /// Running tasks in the order they started.
  private(set) var running: [String] = []

  init(total: Int, start: ContinuousClock.Instant = .now) {
    self.total = total
    self.start = start
  }

  static let clear = "\r\u{1B}[K"

  mutating func started(_ name: String) {
    if !running.contains(name) { running.append(name) }
  }

  mutating func ended(_ name: String) {
    running.removeAll { $0 == name }
    finished += 1
  }

  /// The status text, cut to `width` columns.
  func line(width: Int, now: ContinuousClock.Instant = .now) -> String {
    let seconds = Int((now - start).components.seconds)
    let clock = String(format2: seconds / 60) + ":" + String(format2: seconds % 60)
    let head = "[\(finished)/\(total)] \(running.count) running"
    let names = running.isEmpty ? "" : ": " + running.joined(separator: ", ")
    var text = head + names
    let tail = " · " + clock
    let room = max(10, width - 1) - tail.count
    if text.count > room { text = String(text.prefix(max(0, room - 1))) + "…" }
    return text + tail
  }

  /// The terminal's width in columns (80 when it cannot be read).
  static func terminalWidth(_ descriptor: Int32) -> Int {
    var size = winsize()
    guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
  }
}

extension String {
  /// Two digits, zero-padded: `7` → `07`.
  init(format2 value: Int) {
    self = value < 10 ? "0\(value)" : String(value)
  }
}
