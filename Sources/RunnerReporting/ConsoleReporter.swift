import Glibc
import RunnerBasics
import RunnerEvents
import RunnerModel
import RunnerProcess
import Synchronization

/// Live output for people and CI logs: each task's lines prefixed with its name, a line
/// when a task starts and ends, and a summary that puts the root cause last.
package final class ConsoleReporter: RunObserver {
  static let palette = ["36", "33", "32", "35", "34", "91", "92", "93", "94", "95", "96"]
  static let maximumPrefix = 24

  struct State: ~Copyable {
    var bytes = ByteBuffer()
    /// nil when not on a terminal, and after the run.
    var status: StatusArea?
    /// The status area while an interactive task has the terminal.
    var pausedStatus: StatusArea?
    /// Grouped and quiet modes: each running task's lines, kept until it ends.
    var spool: OutputSpool
    /// For each task with a spool: whether it holds the lines as they came, to be prefixed
    /// when printed (short lines), rather than prefixed (`spoolsRaw`).
    var raw: [Int: Bool] = [:]
    /// Whether the warning about a failed spool was printed.
    var warnedAboutSpool = false
    /// The attempt each task last started: a task a remote slot gave back starts the same
    /// attempt again here, and is not announced twice.
    var announced: [Int: Int] = [:]
  }

  let names: [String]
  let width: Int
  let useColor: Bool
  let descriptor: Int32
  package let mode: ReportSettings.OutputMode
  /// Interactive tasks: the status area is put away while one runs.
  let interactive: Set<Int>
  let spoolDirectory: String
  private let state: Mutex<State>
  private let ticker = Mutex<Task<Void, Never>?>(nil)
  private let prefixes = Mutex<[Int: [UInt8]]>([:])

  /// - Parameters:
  ///   - names: every task's name, by graph index.
  ///   - selected: the tasks of this run (their longest name sets the prefix width).
  ///   - statusArea: keep a live status line at the bottom (for a terminal).
  ///   - mode: prefixed lines as they come, or grouped/quiet (spooled in memory up to
  ///     `spoolMemory` bytes for the run, nil for `OutputSpool.defaultMemoryBudget()`, then in
  ///     files in `spoolDirectory`).
  package init(
    names: [String], selected: [Int], useColor: Bool, descriptor: Int32 = 1, statusArea: Bool = false,
    mode: ReportSettings.OutputMode = .prefixed, spoolDirectory: String = "/tmp", spoolMemory: Int64? = nil,
    interactive: Set<Int> = []
  ) {
    self.interactive = interactive
    self.mode = mode
    self.spoolDirectory = spoolDirectory
    self.names = names
    self.width = min(Self.maximumPrefix, selected.map { names[$0].count }.max() ?? 0)
    self.useColor = useColor
    self.descriptor = descriptor
    let budget = mode == .prefixed ? 0 : spoolMemory ?? OutputSpool.defaultMemoryBudget()
    state = Mutex(
      State(
        status: statusArea ? StatusArea(total: selected.count) : nil,
        spool: OutputSpool(directory: spoolDirectory, memoryBudget: budget)))
    if statusArea {
      // The clock in the status line moves even while no task prints.
      ticker.withLock {
        $0 = Task.detached { [weak self] in
          while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            self?.emit("")
          }
        }
      }
    }
  }

  /// Whether runner's stdout deserves a status area: a terminal that understands escapes.
  package static func wantsStatusArea(_ descriptor: Int32 = 1) -> Bool {
    guard isatty(descriptor) == 1 else { return false }
    if let term = getenv("TERM"), String(cString: term) == "dumb" { return false }
    return getenv("CI") == nil
  }

  func color(_ task: Int, _ text: String) -> String {
    useColor ? "\u{1B}[\(Self.palette[task % Self.palette.count])m\(text)\u{1B}[0m" : text
  }

  func paint(_ code: String, _ text: String) -> String {
    useColor ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }

  /// A task's line prefix, built once per task rather than once per output line.
  func prefix(_ task: Int) -> [UInt8] {
    prefixes.withLock { cache in
      if let known = cache[task] { return known }
      let name = names[task]
      let shown = name.count > width ? String(name.prefix(width - 1)) + "…" : name
      let made = Array((color(task, shown + String(repeating: " ", count: width - shown.count)) + " | ").utf8)
      cache[task] = made
      return made
    }
  }

  /// Appends each line with `head` before it: one `memchr` and two copies a line.
  static func compose(_ lines: OutputLines, head: [UInt8], into buffer: inout ByteBuffer) {
    head.withUnsafeBytes { buffer.appendLines(lines.bytes, eachAfter: $0) }
  }

  package func record(_ event: RunEvent) {
    guard let task = event.task else { return }
    if case .state(.executing, let attempt, _) = event.kind {
      let again = state.withLock { state in state.announced.updateValue(attempt, forKey: task) == attempt }
      if again { return }
    }
    if case .state(let newState, _, _) = event.kind {
      let isInteractive = interactive.contains(task)
      state.withLock { state in
        if isInteractive, newState.isFinal, let paused = state.pausedStatus {
          state.status = paused
          state.pausedStatus = nil
        }
        if newState == .executing { state.status?.started(names[task]) }
        if newState.isFinal { state.status?.ended(names[task]) }
        if isInteractive, newState == .executing, let status = state.status {
          // The task has the terminal now: the status line goes away until it ends.
          state.pausedStatus = status
          state.status = nil
          Terminal.write(StatusArea.clear, to: descriptor)
        }
      }
      if newState.isFinal, mode != .prefixed { flushSpool(task, show: mode == .grouped || newState == .failed) }
    }
    if mode == .quiet, !Self.isFailure(event.kind) { return }
    if let text = line(for: event) { emit(text) }
  }

  /// The line a task's event prints (`▶ build`, `✓ build 1.2s`, …), nil for one it does not.
  package func line(for event: RunEvent) -> String? {
    guard let task = event.task else { return nil }
    let name = color(task, names[task])
    switch event.kind {
    case .state(.executing, let attempt, _):
      return "▶ \(name)" + (attempt > 1 ? " (attempt \(attempt))" : "") + "\n"
    case .state(.succeeded, _, let reason):
      return paint("32", "✓") + " \(name)" + (reason.map { " \($0)" } ?? "") + "\n"
    case .state(.failed, _, let reason):
      return paint("1;31", "✗") + " \(name) " + paint("31", reason ?? "failed") + "\n"
    case .state(.cancelled, _, let reason?):
      return paint("33", "⊘") + " \(name) \(reason)\n"
    case .state(.skipped, _, let reason):
      return paint("33", "↷") + " \(name) skipped" + (reason.map { " (\($0))" } ?? "") + "\n"
    case .waiting(let gate):
      return "… \(name) waiting for \(gate)\n"
    case .serviceReady:
      return paint("32", "●") + " \(name) ready\n"
    case .serviceStopping:
      return paint("2", "■") + " \(name) stopping\n"
    case .retrying(let attempt, let delay, let reason):
      return paint("33", "↻") + " \(name) \(reason); attempt \(attempt) in \(formatDuration(delay))\n"
    default:
      return nil
    }
  }

  /// A read's worth of lines, prefixed, in one write (or one write to the task's spool).
  package func output(task: Int, stream: OutputStreamKind, lines: OutputLines, time: Duration) {
    let head = prefix(task)
    if mode != .prefixed { return spool(task, head: head, lines: lines) }
    state.withLock { state in
      state.bytes.removeAll()
      if state.status != nil { state.bytes.append(StatusArea.clear) }
      Self.compose(lines, head: head, into: &state.bytes)
      appendStatus(&state)
      state.bytes.withBytes { Terminal.write($0, to: descriptor) }
      state.bytes.trim(to: Self.retainedBuffer)
    }
  }

  /// A buffer grown past this by one burst (a giant line) gives the memory back.
  static let retainedBuffer = 4 << 20

  /// One write per message, under the same lock as output lines, so lines never tear; on a
  /// terminal the status line is cleared first and drawn again after.
  func emit(_ text: String) {
    state.withLock { state in
      guard state.status != nil else { return Terminal.write(text, to: descriptor) }
      state.bytes.removeAll()
      state.bytes.append(StatusArea.clear)
      state.bytes.append(text)
      appendStatus(&state)
      state.bytes.withBytes { Terminal.write($0, to: descriptor) }
    }
  }

  private func appendStatus(_ state: inout State) {
    guard let status = state.status else { return }
    state.bytes.append(paint("2", status.line(width: StatusArea.terminalWidth(descriptor))))
  }

  static func isFailure(_ kind: RunEvent.Kind) -> Bool {
    if case .state(.failed, _, _) = kind { return true }
    return false
  }

  /// Appends lines to the task's spool. If the spool cannot be created or written (a full
  /// disk), the task falls back to prefixed lines as they come, after what its spool already
  /// held: the output arrives early rather than not at all. One warning says so.
  private func spool(_ task: Int, head: [UInt8], lines: OutputLines) {
    let failure: Int32? = state.withLock { state in
      defer { state.bytes.trim(to: Self.retainedBuffer) }
      let raw = state.raw[task] ?? Self.spoolsRaw(lines, head: head)
      state.raw[task] = raw
      let outcome: OutputSpool.Outcome
      if raw {
        outcome = state.spool.write(task, lines.bytes.assumingMemoryBound(to: UInt8.self))
      } else {
        state.bytes.removeAll()
        Self.compose(lines, head: head, into: &state.bytes)
        outcome = state.bytes.withBytes { state.spool.write(task, $0) }
      }
      var failure: Int32?
      switch outcome {
      case .spooled: return nil
      case .direct: break
      case .failed(let error, let fd, let held):
        failure = error
        if fd >= 0 {
          // What the spool held before these lines (they are printed whole below).
          if state.status != nil { Terminal.write(StatusArea.clear, to: descriptor) }
          let before = OutputSpool.Spool(descriptor: fd, inMemory: false, size: held)
          if raw {
            OutputSpool.printLines(before, head: head, to: descriptor, using: &state.bytes)
          } else {
            OutputSpool.print(before, to: descriptor)
          }
          close(fd)
        }
      }
      // Printed as prefixed lines would be (composed above unless spooled as they came).
      if raw {
        state.bytes.removeAll()
        Self.compose(lines, head: head, into: &state.bytes)
      }
      if state.status != nil { Terminal.write(StatusArea.clear, to: descriptor) }
      appendStatus(&state)
      state.bytes.withBytes { Terminal.write($0, to: descriptor) }
      guard let failure, !state.warnedAboutSpool else { return nil }
      state.warnedAboutSpool = true
      return failure
    }
    if let failure {
      DiagnosticPrinter().print([
        Diagnostic(
          .warning,
          "cannot spool task output in '\(spoolDirectory)': \(FileReader.describe(failure)); "
            + "printing it as it comes instead")
      ])
    }
  }

  /// Whether a task whose first lines are `lines` spools them as they came: when the head
  /// before each would add more than a quarter to their bytes (judged on the first 4 KiB). A
  /// task of 1-byte lines then spools its own bytes, not nine times as many (and quiet output,
  /// which drops them when the task succeeds, never prefixes them); longer lines are prefixed
  /// as they come, while the task runs, and printed at its end by the kernel (`sendfile`).
  static func spoolsRaw(_ lines: OutputLines, head: [UInt8]) -> Bool {
    let sample = UnsafeRawBufferPointer(rebasing: lines.bytes.prefix(4096))
    let newlines = sample.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    return newlines * head.count * 4 > sample.count
  }

  /// Prints (or drops) a finished task's spooled lines in one piece, then closes the spool.
  private func flushSpool(_ task: Int, show: Bool) {
    let (taken, raw) = state.withLock { ($0.spool.take(task), $0.raw.removeValue(forKey: task) ?? false) }
    guard let spool = taken else { return }
    let fd = spool.descriptor
    defer { close(fd) }
    guard show, spool.size > 0 else { return }
    let head = prefix(task)
    state.withLock { state in
      if state.status != nil { Terminal.write(StatusArea.clear, to: descriptor) }
      guard raw else { return OutputSpool.print(spool, to: descriptor) }
      OutputSpool.printLines(spool, head: head, to: descriptor, using: &state.bytes)
      state.bytes.trim(to: Self.retainedBuffer)
    }
  }

  /// Removes the status line for good (before the summary).
  package func endStatusArea() {
    ticker.withLock {
      $0?.cancel()
      $0 = nil
    }
    state.withLock { state in
      guard state.status != nil else { return }
      state.status = nil
      Terminal.write(StatusArea.clear, to: descriptor)
    }
  }

  /// The end of the run: counts and time, then each failure with its last lines — last,
  /// where the eye lands.
  ///
  /// - Parameters:
  ///   - graph: where failed tasks are defined (a run with failures has one).
  ///   - remark: said after the time.
  package func printSummary(_ summary: RunSummary, graph: TaskGraph?, remark: String? = nil) {
    endStatusArea()
    var out = "\n"
    let counts = TaskState.allCases.filter(\.isFinal).compactMap { state -> String? in
      guard let count = summary.counts[state], count > 0 else { return nil }
      return "\(count) \(state.rawValue)"
    }
    let total = summary.counts.values.reduce(0, +)
    out += "\(total) task(s): \(counts.joined(separator: ", ")) in \(formatDuration(summary.duration))"
    out += (remark.map { " (\($0))" } ?? "") + "\n"
    if let deadlock = summary.deadlock { out += paint("1;31", "deadlock: ") + deadlock + "\n" }
    if let signal = summary.interruption {
      out += paint("1;31", "interrupted") + " by \(signalName(signal))\n"
    }
    for failure in summary.failures.reversed() {
      let location = graph.map { " (\($0[failure.task].location))" } ?? ""
      out += "\n" + paint("1;31", "✗ \(names[failure.task])") + "\(location): \(failure.reason)\n"
      if !failure.tail.isEmpty {
        out += "  last lines of output:\n"
        for line in failure.tail { out += "    " + paint("2", "|") + " \(line)\n" }
      }
    }
    emit(out)
  }
}
