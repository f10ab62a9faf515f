import RunnerBasics
import RunnerModel
import RunnerReporting

/// What a command that runs no task answers: what goes to standard output (text, or a
/// picture's bytes), the problems and warnings for standard error, already worded, and the
/// exit code. The executable writes it; the entry point that made it writes nothing, but for
/// the command line's answers (`streamingTo`), whose output goes out in pieces as it is made.
public struct Answer: Sendable {
  /// For standard output.
  public var output: [UInt8] = []
  /// For standard error: each line ends in a newline.
  public var errors = ""
  public var exitCode: Int32 = ExitStatus.success
  /// Where output goes as it is said once 1 MiB has gathered (nil: kept whole in `output`).
  private let stream: Int32?
  /// Output was written to `stream` already: `output` holds only what came after.
  public private(set) var wroteOutput = false

  init(streamingTo stream: Int32? = nil) { self.stream = stream }

  /// An answer that is one error.
  init(error text: String) {
    stream = nil
    report([Diagnostic(.error, text)])
    exitCode = ExitStatus.usage
  }

  /// The output as text (for a test, or a caller that reads it).
  public var text: String { String(decoding: output, as: UTF8.self) }

  mutating func say(_ text: String) {
    output.append(contentsOf: text.utf8)
    if let stream, output.count >= Self.piece { flush(to: stream) }
  }

  static let piece = 1 << 20

  /// Writes the output gathered so far to `stream`, and keeps the buffer for the next piece.
  private mutating func flush(to stream: Int32) {
    output.withUnsafeBufferPointer { Terminal.write($0, to: stream) }
    output.removeAll(keepingCapacity: true)
    wroteOutput = true
  }

  /// Adds problems as the console words them (coloured when standard error is a terminal that
  /// takes colour) and, in GitHub Actions, as annotations on standard output.
  mutating func report(_ diagnostics: [Diagnostic], annotating reports: ReportSettings? = nil) {
    let printer = DiagnosticPrinter()
    errors += diagnostics.map(printer.format).joined()
    if let reports { say(reports.annotations(diagnostics)) }
  }

  /// The answer failing with the usage exit code.
  func failing() -> Answer {
    var failed = self
    failed.exitCode = ExitStatus.usage
    return failed
  }

  /// Writes it now: for the commands that run tasks, whose load problems come before the run's
  /// own output.
  func write() {
    if !output.isEmpty { output.withUnsafeBufferPointer { Terminal.write($0, to: 1) } }
    if !errors.isEmpty { Terminal.write(errors, to: 2) }
  }
}
