/// One message about a task file or a run: what is wrong and where.
///
/// Prints as `path:line:col: error: message`, followed by its notes, each on its own line.
public struct Diagnostic: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Severity: String, Sendable {
    case error
    case warning
    case note
  }

  public var severity: Severity
  public var message: String
  public var location: SourceLocation?
  /// Further lines that explain the message (other places involved, a hint).
  public var notes: [Diagnostic]

  public init(
    _ severity: Severity = .error, _ message: String, at location: SourceLocation? = nil,
    notes: [Diagnostic] = []
  ) {
    self.severity = severity
    self.message = message
    self.location = location
    self.notes = notes
  }

  public static func error(_ error: TaskFileError, at location: SourceLocation?, notes: [Diagnostic] = [])
    -> Diagnostic
  {
    Diagnostic(.error, error.description, at: location, notes: notes)
  }

  public static func note(_ message: String, at location: SourceLocation? = nil) -> Diagnostic {
    Diagnostic(.note, message, at: location)
  }

  /// The first line alone: `path:line:col: severity: message`.
  public var headline: String {
    if let location { return "\(location): \(severity.rawValue): \(message)" }
    return "\(severity.rawValue): \(message)"
  }

  public var description: String {
    ([headline] + notes.map(\.description)).joined(separator: "\n")
  }
}

/// Every problem found in a task file; loading stops at the end of a phase that found any.
public struct DiagnosticList: Error, Sendable, CustomStringConvertible {
  public var diagnostics: [Diagnostic]

  public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

  public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
