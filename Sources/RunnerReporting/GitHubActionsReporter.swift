import Glibc
import RunnerBasics
import RunnerEvents
import RunnerProcess
import Synchronization

/// The console for GitHub Actions: every task's output in a `::group::` of its own, at any
/// concurrency.
///
/// GitHub groups cannot nest or interleave: a line belongs to the last group opened. So one
/// task at a time is **live**: its group is open and its lines are written as they come. The
/// others' lines, and their status lines, are **held** (in an `OutputSpool`) and written as a
/// whole group when the live group closes: the tasks that ended first, then the next live
/// task, the one running longest, whose held lines come first. At `-j1` nothing is ever held.
/// On a signal that stops the run (`interrupt`), and when the run ends, everything held is
/// written at once; after an interruption lines are written as they come, prefixed with the
/// task's name, so a job killed by its timeout loses nothing. With `--output quiet` no task
/// is live, and only a failed task's group is written.
///
/// Task output goes through `WorkflowCommands`: a tool's own `::error::` lines still annotate,
/// and a task cannot stop runner's commands or open groups of its own. Failure annotations are
/// written after the run, with each failure's last lines (`RunReports`).
package final class GitHubActionsReporter: RunObserver {
  struct State: ~Copyable {
    var spool: OutputSpool
    var buffer = ByteBuffer()
    /// The task whose group is open and written as it comes.
    var live: Int?
    /// Running tasks by the order they started (the longest-running has the lowest).
    var running: [Int: Int] = [:]
    var started = 0
    /// Tasks with a group open (between `executing` and the end of the attempt).
    var grouped: Set<Int> = []
    /// Held tasks that ended, in order, waiting for the live group to close.
    var ended: [Int] = []
    var interrupted = false
  }

  let console: ConsoleReporter
  let names: [String]
  /// `--output quiet`: hold every task; write a group only for a task that failed.
  let quiet: Bool
  private let state: Mutex<State>

  /// - Parameter spoolMemory: held output kept in memory, for the run (nil: the default).
  package init(console: ConsoleReporter, names: [String], spoolMemory: Int64? = nil) {
    self.console = console
    self.names = names
    quiet = console.mode == .quiet
    state = Mutex(
      State(
        spool: OutputSpool(
          directory: console.spoolDirectory, memoryBudget: spoolMemory ?? OutputSpool.defaultMemoryBudget())))
  }

  package func record(_ event: RunEvent) {
    guard let task = event.task else {
      if case .runFinished = event.kind { interrupt() }
      return console.record(event)
    }
    state.withLock { state in
      if state.interrupted { return console.record(event) }
      var text = ""
      switch event.kind {
      case .state(.executing, _, _) where state.grouped.contains(task):
        // Back from a remote slot to run here: its group is still open.
        break
      case .state(.executing, let attempt, _):
        state.running[task] = state.running[task] ?? state.started
        state.started += 1
        if state.live == nil, !quiet { state.live = task }
        state.grouped.insert(task)
        let title = names[task] + (attempt > 1 ? " (attempt \(attempt))" : "")
        text = "::group::\(GitHubAnnotation.escapeData(title))\n"
      case .retrying:
        if state.grouped.remove(task) != nil { text = "::endgroup::\n" }
        text += console.line(for: event) ?? ""
      case .state(let final, _, _) where final.isFinal:
        if state.grouped.remove(task) != nil { text = "::endgroup::\n" }
        text += console.line(for: event) ?? ""
      default:
        text = console.line(for: event) ?? ""
      }
      write(text, for: task, &state)
      if case .state(let final, _, _) = event.kind, final.isFinal { ended(task, failed: final == .failed, &state) }
    }
  }

  package func output(task: Int, stream: OutputStreamKind, lines: OutputLines, time: Duration) {
    state.withLock { state in
      state.buffer.removeAll()
      let head = state.interrupted ? console.prefix(task) : []
      WorkflowCommands.append(lines, head: head, to: &state.buffer)
      writeBuffer(for: state.interrupted ? nil : task, &state)
      state.buffer.trim(to: ConsoleReporter.retainedBuffer)
    }
  }

  /// SIGINT, SIGTERM, the end of the run: writes every held group now; from here on, lines
  /// are written as they come, prefixed.
  package func interrupt() {
    state.withLock { state in
      guard !state.interrupted else { return }
      let live = state.live
      if let live, state.grouped.contains(live) { console.emit("::endgroup::\n") }
      state.live = nil
      flushEnded(&state)
      // Running tasks in the order they started, then any other held (a task waiting for a gate).
      let running = state.running.sorted(by: { $0.value < $1.value }).map(\.key)
      for task in running + state.spool.heldTasks.filter({ !running.contains($0) }) where task != live {
        printHeld(task, &state)
        if state.grouped.contains(task) { console.emit("::endgroup::\n") }
      }
      state.running = [:]
      state.grouped = []
      state.interrupted = true
    }
  }

  private func write(_ text: String, for task: Int, _ state: inout State) {
    guard !text.isEmpty else { return }
    state.buffer.removeAll()
    state.buffer.append(text)
    writeBuffer(for: task, &state)
  }

  /// Writes `state.buffer` now (no task, the live one, or none live), after what the task
  /// has held, or holds it for `task`.
  private func writeBuffer(for task: Int?, _ state: inout State) {
    if let task, quiet || state.live.map({ $0 != task }) == true {
      return hold(task, &state)
    }
    if let task { printHeld(task, &state) }
    state.buffer.withBytes { Terminal.write($0, to: console.descriptor) }
  }

  private func hold(_ task: Int, _ state: inout State) {
    let outcome = state.buffer.withBytes { state.spool.write(task, $0) }
    if case .failed(_, let fd, let held) = outcome {
      // Held output that cannot be kept is written now, inside whatever group is open, rather
      // than lost (the spool's own warning is the console's, for grouped output).
      if fd >= 0 {
        OutputSpool.print(OutputSpool.Spool(descriptor: fd, inMemory: false, size: held), to: console.descriptor)
        close(fd)
      }
      state.buffer.withBytes { Terminal.write($0, to: console.descriptor) }
    } else if case .direct = outcome {
      state.buffer.withBytes { Terminal.write($0, to: console.descriptor) }
    }
  }

  /// A task ended: a held one waits for the live group to close; the live one closes it, and
  /// the ended groups are written, then the next live task's. Quiet: only a failed task's.
  private func ended(_ task: Int, failed: Bool, _ state: inout State) {
    state.running[task] = nil
    if quiet {
      if failed { printHeld(task, &state) } else if let spool = state.spool.take(task) { close(spool.descriptor) }
      return
    }
    guard state.live == task else {
      if state.live == nil { printHeld(task, &state) } else { state.ended.append(task) }
      return
    }
    state.live = nil
    flushEnded(&state)
    guard let next = state.running.min(by: { $0.value < $1.value })?.key else { return }
    printHeld(next, &state)
    state.live = next
  }

  private func flushEnded(_ state: inout State) {
    for task in state.ended { printHeld(task, &state) }
    state.ended = []
  }

  private func printHeld(_ task: Int, _ state: inout State) {
    guard let spool = state.spool.take(task) else { return }
    OutputSpool.print(spool, to: console.descriptor)
    close(spool.descriptor)
  }
}
