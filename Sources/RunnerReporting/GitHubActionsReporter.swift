import RunnerBasics
import RunnerExecution
import Synchronization

/// The console for GitHub Actions: the live lines of `ConsoleReporter`, with each task's
/// output folded into a `::group::` when groups can be sound.
///
/// GitHub groups cannot nest or interleave: a line belongs to the last group opened. So
/// output is grouped only when one task runs at a time (`-j1`, or a single task); with
/// more, lines stay prefixed with the task's name, as at a terminal. Either way every line
/// is written as it is read, so a job killed by its timeout loses nothing printed.
/// Failure annotations are written after the run, with each failure's last lines
/// (`RunReports`).
package final class GitHubActionsReporter: RunObserver {
  let console: ConsoleReporter
  let names: [String]
  /// Wrap each attempt's output in a group.
  package let grouped: Bool
  /// The task whose group is open.
  private let open = Mutex<Int?>(nil)

  package init(console: ConsoleReporter, names: [String], grouped: Bool) {
    self.console = console
    self.names = names
    self.grouped = grouped
  }

  package func record(_ event: RunEvent) {
    guard grouped, let task = event.task else { return console.record(event) }
    switch event.kind {
    case .state(.executing, let attempt, _):
      closeGroup()
      open.withLock { $0 = task }
      let title = names[task] + (attempt > 1 ? " (attempt \(attempt))" : "")
      console.emit("::group::\(GitHubAnnotation.escapeData(title))\n")
    case .retrying:
      closeGroup(task)
      console.record(event)
    case .state(let state, _, _) where state.isFinal:
      closeGroup(task)
      console.record(event)
    default:
      console.record(event)
    }
  }

  package func output(task: Int, stream: OutputStreamKind, lines: OutputLines, time: Duration) {
    guard grouped else { return console.output(task: task, stream: stream, lines: lines, time: time) }
    // Lines pass through as they are: a tool's own `::error::` lines still annotate.
    console.emit(String(decoding: lines.bytes, as: UTF8.self))
  }

  /// Ends the open group (only `task`'s, when given).
  func closeGroup(_ task: Int? = nil) {
    let wasOpen = open.withLock { current -> Bool in
      guard let open = current, task == nil || open == task else { return false }
      current = nil
      return true
    }
    if wasOpen { console.emit("::endgroup::\n") }
  }
}
