import Synchronization

/// A position in a task file, 1-based, as editors and compilers print it.
///
/// Twelve bytes: the file is a number in a table of the paths seen (`SourceFile`), line and
/// column 32-bit. Every node of a task file carries one, a million-task file millions.
package struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
  private let fileNumber: UInt32
  private let storedLine: UInt32
  private let storedColumn: UInt32

  package init(file: String, line: Int, column: Int) {
    self.init(file: SourceFile(file), line: line, column: column)
  }

  package init(file: SourceFile, line: Int, column: Int) {
    fileNumber = file.number
    storedLine = UInt32(clamping: line)
    storedColumn = UInt32(clamping: column)
  }

  /// The file's path as the user named it (kept relative so messages stay short).
  package var file: String { SourceFile(number: fileNumber).path }
  package var line: Int { Int(storedLine) }
  package var column: Int { Int(storedColumn) }

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
