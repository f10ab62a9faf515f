import Glibc
import RunnerBasics
import RunnerExecution

/// GitHub's workflow commands in task output. A task's `::error::`, `::warning::`,
/// `::notice::`, `::debug::` and `::add-mask::` lines keep working (linters annotate through
/// them; a task may mask a secret it made). Every other command — `::stop-commands::`, which
/// would silence runner's own groups and annotations, `::group::`/`::endgroup::`, which would
/// break runner's groups, `::set-output::`, `::set-env::`, `::add-path::`, `::echo::`, … — and
/// the old `##[command]` form anywhere in a line are made inert by a zero-width space after
/// the line's leading blanks (GitHub reads a command only at the start, after `TrimStart`) or
/// between `##` and `[`. The text still reads the same in the log.
enum WorkflowCommands {
  static let passing: Set<String> = ["error", "warning", "notice", "debug", "add-mask"]
  static let zeroWidthSpace: [UInt8] = [0xE2, 0x80, 0x8B]

  /// Appends each line, after `head` when one is given, with commands made inert.
  static func append(_ lines: OutputLines, head: [UInt8], to buffer: inout ByteBuffer) {
    lines.forEach { line in
      head.withUnsafeBytes { buffer.append($0) }
      appendLine(line, to: &buffer)
      buffer.append(byte: 0x0A)
    }
  }

  /// One line (without its newline), neutralised.
  static func appendLine(_ line: UnsafeRawBufferPointer, to buffer: inout ByteBuffer) {
    var start = 0
    while start < line.count, [0x20, 0x09, 0x0B, 0x0C, 0x0D].contains(line[start]) { start += 1 }
    var done = 0
    if start + 1 < line.count, line[start] == 0x3A, line[start + 1] == 0x3A, !passes(line, from: start + 2) {
      buffer.append(UnsafeRawBufferPointer(rebasing: line[..<start]))
      zeroWidthSpace.withUnsafeBytes { buffer.append($0) }
      done = start
    }
    // `##[` anywhere.
    var at = done
    while at + 2 < line.count {
      if line[at] == 0x23, line[at + 1] == 0x23, line[at + 2] == 0x5B {
        buffer.append(UnsafeRawBufferPointer(rebasing: line[done..<(at + 2)]))
        zeroWidthSpace.withUnsafeBytes { buffer.append($0) }
        done = at + 2
        at += 3
      } else {
        at += 1
      }
    }
    buffer.append(UnsafeRawBufferPointer(rebasing: line[done...]))
  }

  /// Whether the command whose name starts at `from` is one a task may use.
  static func passes(_ line: UnsafeRawBufferPointer, from: Int) -> Bool {
    var end = from
    while end < line.count, line[end] != 0x20, line[end] != 0x3A { end += 1 }
    let name = String(decoding: UnsafeRawBufferPointer(rebasing: line[from..<end]), as: UTF8.self).lowercased()
    return passing.contains(name)
  }
}
