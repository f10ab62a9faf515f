/// What an import could not carry over exactly: each construct with the line it is on and
/// why. Printed on stderr; an import with entries exits 3.
package struct ImportReport: Sendable {
  package enum Level: String, Sendable {
    /// Carried over with a difference the reason names.
    case approximate
    /// Left out (or left as written, where it will not work); the reason says what to do.
    case notCarried = "not carried over"
  }

  package struct Entry: Sendable, Hashable {
    package var line: Int
    package var level: Level
    package var construct: String
    package var reason: String
  }

  /// The imported file's path as given.
  package let file: String
  package private(set) var entries: [Entry] = []
  /// The entries, for `add`'s check: a list's was quadratic (20 000 Makefile targets, 7 s).
  private var known: Set<Entry> = []

  /// Files read into the imported one (just's `import`): the lines of the Nth are numbered
  /// from `N × lineBase`.
  package var sources: [String] = []
  static let lineBase = 1_000_000

  package init(file: String) { self.file = file }

  /// The file and line of a line number, in the imported file or a file read into it.
  package func location(_ line: Int) -> (file: String, line: Int) {
    let source = line / Self.lineBase
    guard source > 0, source <= sources.count else { return (file, line) }
    return (sources[source - 1], line % Self.lineBase)
  }

  /// `FILE:LINE` of a line number.
  package func place(_ line: Int) -> String {
    let (file, line) = location(line)
    return "\(file):\(line)"
  }

  /// `error` at the file and line its line number stands for.
  package func located(_ error: ImportError) -> ImportError {
    guard let line = error.line, line >= Self.lineBase else { return error }
    let (file, local) = location(line)
    // A line named in the message ("first defined on line N") too.
    var message = ""
    var rest = Substring(error.message)
    while let range = rest.firstRange(of: "line ") {
      message += rest[..<range.upperBound]
      rest = rest[range.upperBound...]
      let digits = rest.prefix { $0.isNumber }
      if let number = Int(digits), number >= Self.lineBase {
        message += location(number).file == file ? "\(number % Self.lineBase)" : place(number)
        rest = rest.dropFirst(digits.count)
      }
    }
    return ImportError(file: file, line: local, message + rest)
  }

  package mutating func approximate(_ construct: String, at line: Int, _ reason: String) {
    add(Entry(line: line, level: .approximate, construct: construct, reason: reason))
  }

  package mutating func notCarried(_ construct: String, at line: Int, _ reason: String) {
    add(Entry(line: line, level: .notCarried, construct: construct, reason: reason))
  }

  private mutating func add(_ entry: Entry) {
    if known.insert(entry).inserted { entries.append(entry) }
  }

  package var isEmpty: Bool { entries.isEmpty }

  /// One line an entry, in line order: `Taskfile.yml:12: approximate: {{.VERSION | upper}}: …`.
  package func render() -> String {
    entries.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map {
      "\(place($0.element.line)): \($0.element.level.rawValue): \($0.element.construct): \($0.element.reason)\n"
    }.joined()
  }
}
