/// A position in a task file, 1-based, as editors and compilers print it.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The file's path as the user named it (kept relative so messages stay short).
  public var file: String
  public var line: Int
  public var column: Int

  public init(file: String, line: Int, column: Int) {
    self.file = file
    self.line = line
    self.column = column
  }

  public var description: String { "\(file):\(line):\(column)" }

  public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
    (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
  }
}
