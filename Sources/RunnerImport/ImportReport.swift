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

  package init(file: String) { self.file = file }

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
      "\(file):\($0.element.line): \($0.element.level.rawValue): \($0.element.construct): \($0.element.reason)\n"
    }.joined()
  }
}
