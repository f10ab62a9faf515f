import RunnerBasics
import RunnerModel
import RunnerReporting

/// What a command that runs no task answers: what goes to standard output (text, or a
/// picture's bytes), the problems and warnings for standard error, already worded, and the
/// exit code. The executable writes it; the entry point that made it writes nothing.
public struct Answer: Sendable {
  /// For standard output.
  public var output: [UInt8] = []
  /// For standard error: each line ends in a newline.
  public var errors = ""
  public var exitCode: Int32 = ExitStatus.success

  init() {}

  /// An answer that is one error.
  init(error text: String) {
    report([Diagnostic(.error, text)])
    exitCode = ExitStatus.usage
  }

  /// The output as text (for a test, or a caller that reads it).
  public var text: String { String(decoding: output, as: UTF8.self) }

  mutating func say(_ text: String) {
    output.append(contentsOf: text.utf8)
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
