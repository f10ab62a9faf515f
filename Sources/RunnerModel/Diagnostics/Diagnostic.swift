/// One message about a task file or a run: what is wrong and where.
///
/// Prints as `path:line:col: error: message`, followed by its notes, each on its own line.
package struct Diagnostic: Error, Sendable, Equatable, CustomStringConvertible {
  package enum Severity: String, Sendable {
    case error
    case warning
    case note
  }

  package var severity: Severity
  package var message: String
  package var location: SourceLocation?
  /// Further lines that explain the message (other places involved, a hint).
  package var notes: [Diagnostic]

  package init(
    _ severity: Severity = .error, _ message: String, at location: SourceLocation? = nil,
    notes: [Diagnostic] = []
  ) {
    self.severity = severity
    self.message = message
    self.location = location
    self.notes = notes
  }

  package static func error(_ error: TaskFileError, at location: SourceLocation?, notes: [Diagnostic] = [])
    -> Diagnostic
  {
    Diagnostic(.error, error.description, at: location, notes: notes)
  }

  package static func note(_ message: String, at location: SourceLocation? = nil) -> Diagnostic {
    Diagnostic(.note, message, at: location)
  }

  /// The first line alone: `path:line:col: severity: message`.
  package var headline: String {
    if let location { return "\(location): \(severity.rawValue): \(message)" }
    return "\(severity.rawValue): \(message)"
  }

  package var description: String {
    ([headline] + notes.map(\.description)).joined(separator: "\n")
  }
}

/// Every problem found in a task file; loading stops at the end of a phase that found any.
package struct DiagnosticList: Error, Sendable, CustomStringConvertible {
  package var diagnostics: [Diagnostic]

  package init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

  package var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
