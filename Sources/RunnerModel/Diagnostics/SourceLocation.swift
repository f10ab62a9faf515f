import Synchronization

/// A position in a task file, 1-based, as editors and compilers print it.
///
/// Eight bytes: the file is a number in a table of the paths seen (`SourceFile`), and file,
/// line and column share one word (16, 28 and 20 bits). Every node of a task file carries one,
/// a million-task file millions. A location too large for the word (a line past 268 million,
/// a column past a million in a generated one-line file, the 65 536th path) is kept whole in
/// a table, its number in the word. The table is never emptied: a language server editing
/// such a one-line file keeps a few bytes for each location it saw.
package struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
  private let bits: UInt64

  // Computed, not stored: a stored static is a global whose first read goes through
  // `swift_once`, an opaque call.
  private static var lineBits: UInt64 { 28 }
  private static var columnBits: UInt64 { 20 }
  /// The file number that marks a location kept in `overflow`.
  private static var overflowFile: UInt64 { 0xFFFF }

  package init(file: String, line: Int, column: Int) {
    self.init(file: SourceFile(file), line: line, column: column)
  }

  package init(file: SourceFile, line: Int, column: Int) {
    let line = UInt64(UInt32(clamping: line))
    let column = UInt64(UInt32(clamping: column))
    let file = UInt64(file.number)
    if file < Self.overflowFile, line >> Self.lineBits == 0, column >> Self.columnBits == 0 {
      bits = file << (Self.lineBits + Self.columnBits) | line << Self.columnBits | column
    } else {
      bits = Self.overflowFile << (Self.lineBits + Self.columnBits) | Self.keep(file, line, column)
    }
  }

  /// The file's path as the user named it (kept relative so messages stay short).
  package var file: String { SourceFile(number: parts.file).path }
  package var line: Int { Int(parts.line) }
  package var column: Int { Int(parts.column) }

  private var parts: Parts {
    let file = bits >> (Self.lineBits + Self.columnBits)
    if file == Self.overflowFile {
      return Self.overflow.withLock { $0.kept[Int(truncatingIfNeeded: bits & (1 << 48 - 1))] }
    }
    let line = bits >> Self.columnBits & (1 << Self.lineBits - 1)
    let column = bits & (1 << Self.columnBits - 1)
    return Parts(file: UInt32(file), line: UInt32(line), column: UInt32(column))
  }

  private struct Parts: Hashable {
    var file: UInt32
    var line: UInt32
    var column: UInt32
  }

  /// The locations too large for the word. The same location gets the same number, so that
  /// equal locations have equal bits.
  private static let overflow = Mutex<(kept: [Parts], numbers: [Parts: Int])>(([], [:]))

  private static func keep(_ file: UInt64, _ line: UInt64, _ column: UInt64) -> UInt64 {
    let parts = Parts(file: UInt32(file), line: UInt32(line), column: UInt32(column))
    return overflow.withLock { table in
      if let number = table.numbers[parts] { return UInt64(number) }
      table.numbers[parts] = table.kept.count
      table.kept.append(parts)
      return UInt64(table.kept.count - 1)
    }
  }

  package var description: String { "\(file):\(line):\(column)" }

  package static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
    (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
  }
}

/// A task file's path, by its number in a table of every path seen: locations share it.
package struct SourceFile: Sendable, Hashable {
  let number: UInt32

  private static let table = Mutex<(paths: [String], numbers: [String: UInt32])>(([], [:]))

  package init(_ path: String) {
    number = Self.table.withLock { table in
      if let number = table.numbers[path] { return number }
      let number = UInt32(table.paths.count)
      table.paths.append(path)
      table.numbers[path] = number
      return number
    }
  }

  init(number: UInt32) { self.number = number }

  package var path: String { Self.table.withLock { $0.paths[Int(number)] } }
}
