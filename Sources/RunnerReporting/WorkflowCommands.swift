import Glibc
import RunnerBasics
import RunnerProcess

/// GitHub's workflow commands in task output. A task's `::error::`, `::warning::`,
/// `::notice::`, `::debug::` and `::add-mask::` lines keep working (linters annotate through
/// them; a task may mask a secret it made). Every other command — `::stop-commands::`, which
/// would silence runner's own groups and annotations, `::group::`/`::endgroup::`, which would
/// break runner's groups, `::set-output::`, `::set-env::`, `::add-path::`, `::echo::`, … — and
/// the old `##[command]` form anywhere in a line are made inert by a zero-width space after
/// the line's leading blanks (GitHub reads a command only at the start of a line, after
/// `TrimStart`; a CR starts a line for it too) or between `##` and `[`. The text still reads
/// the same in the log.
enum WorkflowCommands {
  static let passing: Set<String> = ["error", "warning", "notice", "debug", "add-mask"]
  static let zeroWidthSpace: [UInt8] = [0xE2, 0x80, 0x8B]

  /// Appends each line, after `head` when one is given, with commands made inert.
  static func append(_ lines: OutputLines, head: [UInt8], to buffer: inout ByteBuffer) {
    // A read without `::` or `##[` holds no command: its lines go on as they are.
    if !holds(lines.bytes, 0x3A, 0x3A), !holds(lines.bytes, 0x23, 0x23) {
      return head.withUnsafeBytes { buffer.appendLines(lines.bytes, eachAfter: $0) }
    }
    lines.forEach { line in
      head.withUnsafeBytes { buffer.append($0) }
      appendLine(line, to: &buffer)
      buffer.append(byte: 0x0A)
    }
  }

  /// Whether `bytes` holds `first` followed by `second`.
  static func holds(_ bytes: UnsafeRawBufferPointer, _ first: UInt8, _ second: UInt8) -> Bool {
    guard let base = bytes.baseAddress else { return false }
    var at = 0
    while at + 1 < bytes.count, let found = memchr(base + at, Int32(first), bytes.count - at - 1) {
      let index = base.distance(to: UnsafeRawPointer(found))
      if bytes[index + 1] == second { return true }
      at = index + 1
    }
    return false
  }

  /// One line (without its newline), neutralised. GitHub's runner reads lines with .NET's
  /// `ReadLine`, which also ends a line at a lone CR, so each CR starts a line of its own.
  static func appendLine(_ line: UnsafeRawBufferPointer, to buffer: inout ByteBuffer) {
    // Where a zero-width space goes: before a command's `::`, between `##` and `[`.
    guard let base = line.baseAddress else { return }
    /// The offset of the next `byte` at or after `from`, found with `memchr` (this runs per line).
    func next(_ byte: UInt8, from: Int) -> Int? {
      guard from < line.count, let found = memchr(base + from, Int32(byte), line.count - from) else { return nil }
      return base.distance(to: UnsafeRawPointer(found))
    }
    var marks: [Int] = []
    var start = 0
    while start <= line.count {
      let end = next(0x0D, from: start) ?? line.count
      if let command = commandStart(line, from: start, to: end), !passes(line, from: command + 2) {
        marks.append(command)
      }
      start = end + 1
    }
    var at = 0
    while let hash = next(0x23, from: at), hash + 2 < line.count {
      if line[hash + 1] == 0x23, line[hash + 2] == 0x5B {
        marks.append(hash + 2)
        at = hash + 3
      } else {
        at = hash + 1
      }
    }
    var done = 0
    for mark in marks.sorted() {
      buffer.append(UnsafeRawBufferPointer(rebasing: line[done..<mark]))
      zeroWidthSpace.withUnsafeBytes { buffer.append($0) }
      done = mark
    }
    buffer.append(UnsafeRawBufferPointer(rebasing: line[done...]))
  }

  /// Where `::` starts in `line[from..<end]` after what .NET's `TrimStart` removes (ASCII
  /// blanks and Unicode's spaces), if it does.
  static func commandStart(_ line: UnsafeRawBufferPointer, from: Int, to end: Int) -> Int? {
    var at = from
    while at < end {
      if [0x20, 0x09, 0x0A, 0x0B, 0x0C].contains(line[at]) {
        at += 1
      } else if let width = unicodeSpace(line, at: at, end: end) {
        at += width
      } else {
        break
      }
    }
    return at + 1 < end && line[at] == 0x3A && line[at + 1] == 0x3A ? at : nil
  }

  /// The UTF-8 length of a Unicode space (`Char.IsWhiteSpace` beyond ASCII) at `at`, if one is.
  static func unicodeSpace(_ line: UnsafeRawBufferPointer, at: Int, end: Int) -> Int? {
    let first = line[at]
    if first == 0xC2, at + 1 < end, line[at + 1] == 0xA0 || line[at + 1] == 0x85 { return 2 }
    guard at + 2 < end else { return nil }
    let (second, third) = (line[at + 1], line[at + 2])
    switch (first, second) {
    case (0xE1, 0x9A) where third == 0x80: return 3  // U+1680
    case (0xE2, 0x80) where (0x80...0x8A).contains(third) || [0xA8, 0xA9, 0xAF].contains(third): return 3
    case (0xE2, 0x81) where third == 0x9F: return 3  // U+205F
    case (0xE3, 0x80) where third == 0x80: return 3  // U+3000
    default: return nil
    }
  }

  /// Whether the command whose name starts at `from` is one a task may use.
  static func passes(_ line: UnsafeRawBufferPointer, from: Int) -> Bool {
    var end = from
    while end < line.count, line[end] != 0x20, line[end] != 0x3A { end += 1 }
    let name = String(decoding: UnsafeRawBufferPointer(rebasing: line[from..<end]), as: UTF8.self).lowercased()
    return passing.contains(name)
  }
}
