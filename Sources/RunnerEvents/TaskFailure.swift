import RunnerBasics
import RunnerProcess

/// Why a task attempt did not succeed.
package enum TaskFailure: Error, Sendable, Equatable, CustomStringConvertible {
  /// A command ended badly: `command` is its text, `outcome` how it ended.
  case command(String, ProcessOutcome)
  case spawn(String, SpawnError)
  case timedOut(Duration)
  case gate(String)
  case outputs(String)
  case cancelled
  /// Ctrl-C at the terminal an interactive task held ended it (signal N): the run stops as
  /// for runner's own Ctrl-C.
  case interrupted(Int32)
  /// Any other reason, already worded (image steps use it).
  case message(String)
  /// A spot check found the remote cache's result different from the run here (`--verify-cache`):
  /// not retried, since another attempt would restore the run's own entry and pass.
  case spotCheck(String)
  /// The task was given a remote slot but must run here (why): the scheduler queues it again
  /// for a local one. Never a final outcome.
  case runLocally(String)

  package var description: String {
    switch self {
    case .command(let command, let outcome): return "'\(Self.shorten(command))' failed with \(outcome)"
    case .spawn(let command, let error): return "could not start '\(Self.shorten(command))': \(error)"
    case .timedOut(let limit): return "timed out after \(formatDuration(limit))"
    case .gate(let reason): return reason
    case .outputs(let reason): return reason
    case .cancelled: return "cancelled"
    case .interrupted: return "interrupted at its terminal"
    case .message(let text): return text
    case .spotCheck(let text): return text
    case .runLocally(let reason): return "runs here: \(reason)"
    }
  }

  /// Whether another attempt could end otherwise (`retries:`).
  package var isRetryable: Bool {
    switch self {
    case .cancelled, .runLocally, .spotCheck: false
    default: true
    }
  }

  package var isRunLocally: Bool {
    if case .runLocally = self { true } else { false }
  }

  package static func shorten(_ command: String) -> String {
    let line = command.split(separator: "\n").first.map(String.init) ?? command
    let short = line.count > 60 ? String(line.prefix(57)) + "..." : line
    return short + (line != command && !short.hasSuffix("...") ? " ..." : "")
  }
}
