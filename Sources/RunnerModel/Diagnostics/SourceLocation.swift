/// A position in a task file, 1-based, as editors and compilers print it.
package struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The file's path as the user named it (kept relative so messages stay short).
  package var file: String
  package var line: Int
  package var column: Int

  package init(file: String, line: Int, column: Int) {
    self.file = file
    self.line = line
    self.column = column
  }

  package var description: String { "\(file):\(line):\(column)" }

  package static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
    (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
  }
}
