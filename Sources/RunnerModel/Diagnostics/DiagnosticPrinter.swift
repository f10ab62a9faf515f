import Glibc
import RunnerBasics

/// Prints diagnostics as `path:line:col: error: message`, coloured only on a terminal
/// and never when NO_COLOR is set (non-empty) or TERM is dumb.
package struct DiagnosticPrinter: Sendable {
  package var useColor: Bool

  package init(useColor: Bool = Terminal.colorEnabled(for: 2)) {
    self.useColor = useColor
  }

  package func format(_ diagnostic: Diagnostic) -> String {
    ([line(diagnostic)] + diagnostic.notes.map(line)).joined(separator: "\n") + "\n"
  }

  package func print(_ diagnostics: [Diagnostic]) {
    Terminal.write(diagnostics.map(format).joined(), to: 2)
  }

  /// Its control characters written out (`\e`, `\x07`): a message may quote a damaged file.
  func line(_ diagnostic: Diagnostic) -> String {
    var diagnostic = diagnostic
    diagnostic.message = diagnostic.message.escapingControlCharacters(keepingNewlines: true)
    guard useColor else { return diagnostic.headline }
    let color: String
    switch diagnostic.severity {
    case .error: color = "\u{1B}[1;31m"
    case .warning: color = "\u{1B}[1;35m"
    case .note: color = "\u{1B}[1;36m"
    }
    let place = diagnostic.location.map { "\u{1B}[1m\($0):\u{1B}[0m " } ?? ""
    return place + color + diagnostic.severity.rawValue + ":\u{1B}[0m \u{1B}[1m" + diagnostic.message + "\u{1B}[0m"
  }
}
