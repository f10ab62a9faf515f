import Glibc
import RunnerBasics
import RunnerEvents
import RunnerProcess
import Synchronization

/// `--ui tui`: the run as a live full-screen view, drawn by a thread of its own that also reads
/// the keys. Events and output only update the model under a lock; the thread draws at most 10
/// frames a second (and at once after a key), so a busy run pays for the view only what it
/// prints.
///
/// The view appears a moment after the run starts (a run that ends before never shows it),
/// steps aside while an interactive task has the terminal and while runner is stopped
/// (Ctrl-Z), and leaves when the run ends; the console then prints the summary as always.
package final class LiveReporter: RunObserver {
  /// What the thread is to do, and what it has done.
  struct Control {
    var ended = false
    /// Why the view is put away: an interactive task runs, runner is stopped.
    var away: Set<Away> = []
    /// Counts the changes asked for; `acted` is the last one the thread has carried out.
    var asked = 0
    var acted = 0
    var started = false
    /// The thread has ended (or never began): nobody waits for it.
    var gone = false
  }

  enum Away: Hashable {
    case interactive(Int)
    case suspended
  }

  /// Waits before the view appears.
  static let delay: Duration = .milliseconds(100)
  static let frameInterval: Duration = .milliseconds(100)

  package let console: ConsoleReporter
  private let model: Mutex<(model: LiveModel, changed: Bool)>
  private let control = Mutex(Control())
  /// Wakes the thread.
  private let wake = Wakeup()
  private let interactive: Set<Int>
  private let style: LiveModel.Style
  private let origin = Mutex<ContinuousClock.Instant?>(nil)

  /// - Parameters:
  ///   - names: every task's name as shown, by index.
  ///   - members: the run's tasks.
  ///   - console: prints the summary once the view has left.
  package init(names: [String], members: [Int], console: ConsoleReporter, interactive: Set<Int>, useColor: Bool) {
    self.console = console
    self.interactive = interactive
    self.style = LiveModel.Style(color: useColor)
    model = Mutex((LiveModel(names: names, members: members), true))
  }

  package func record(_ event: RunEvent) {
    if case .runStarted = event.kind { return start(origin: ContinuousClock.now - event.time) }
    model.withLock {
      $0.model.record(event)
      $0.changed = true
    }
    guard let task = event.task, interactive.contains(task), case .state(let state, _, _) = event.kind else { return }
    if state == .executing {
      update(wait: .seconds(2)) { $0.away.insert(.interactive(task)) }
      let name = model.withLock { $0.model.names[task] }
      Terminal.write("▶ \(name) has the terminal (the view comes back when it ends)\n", to: 1)
    }
    if state.isFinal { update(wait: nil) { $0.away.remove(.interactive(task)) } }
  }

  package func output(task: Int, stream: OutputStreamKind, lines: OutputLines, time: Duration) {
    model.withLock {
      $0.model.append(task, stream, lines.bytes)
      $0.changed = true
    }
  }

  package var wantsUnfinished: Bool { true }

  package func unfinished(task: Int, stream: OutputStreamKind, bytes: UnsafeRawBufferPointer) {
    model.withLock {
      $0.model.setUnfinished(task, stream, bytes)
      $0.changed = true
    }
  }

  /// Ctrl-C: the header says the run is stopping.
  package func interrupt() {
    model.withLock {
      $0.model.stopping = true
      $0.changed = true
    }
    poke()
  }

  /// Ctrl-Z: the terminal as it was before the view, until `resume`.
  package func suspend() { update(wait: .seconds(2)) { $0.away.insert(.suspended) } }

  package func resume() { update(wait: nil) { $0.away.remove(.suspended) } }

  /// The run is over: the view leaves the screen (returns once it has, the thread ended).
  package func finish() {
    guard !update(wait: .seconds(10), { $0.ended = true }) else { return }
    // The thread is stuck (writing to a terminal nobody reads): at least the summary and what
    // runner said go out, after the sequence that leaves the view.
    Terminal.writeToScreen(LiveTerminal.leaveSequence, to: 1)
    Terminal.endDiverting()
  }

  /// Changes what the thread is to do and wakes it; with `wait`, returns once it has done it
  /// or has ended (or after `wait`, should it be stuck writing to a terminal nobody reads).
  ///
  /// - Returns: false when it waited in vain.
  @discardableResult
  private func update(wait: Duration?, _ change: (inout Control) -> Void) -> Bool {
    let (mine, waits) = control.withLock { control -> (Int, Bool) in
      change(&control)
      control.asked += 1
      return (control.asked, control.started && !control.gone)
    }
    poke()
    guard let wait, waits else { return true }
    let deadline = ContinuousClock.now + wait
    while ContinuousClock.now < deadline {
      if control.withLock({ $0.acted >= mine || $0.gone }) { return true }
      usleep(1000)
    }
    return false
  }

  private func poke() {
    wake.signal()
  }

  private func start(origin: ContinuousClock.Instant) {
    self.origin.withLock { $0 = origin }
    let begin = control.withLock { control -> Bool in
      defer { control.started = true }
      return !control.started && !control.ended
    }
    guard begin else { return }
    // Without its thread there is no view: nobody waits for one.
    // Its own thread: it blocks in `poll`, which must never hold up Swift's executors.
    if wake.descriptor < 0 || !DetachedThread.start({ self.loop() }) { control.withLock { $0.gone = true } }
  }

  /// The thread's loop: enter when due, draw, read keys, step aside, leave.
  fileprivate func loop() {
    var terminal = LiveTerminal(input: 0, output: 1)
    let start = ContinuousClock.now
    var lastDraw = start
    var pending: [UInt8] = []
    /// The terminal hung up: nothing more is read or drawn.
    var hungUp = false
    defer {
      terminal.leave()
      control.withLock { $0.gone = true }
    }
    while true {
      let (ended, away, asked) = control.withLock { ($0.ended, !$0.away.isEmpty, $0.asked) }
      if ended || away || hungUp { terminal.leave() }
      control.withLock { $0.acted = max($0.acted, asked) }
      if ended { return }
      let now = ContinuousClock.now
      if !away, !hungUp, !terminal.entered, now - start >= Self.delay { terminal.enter() }
      if terminal.entered {
        let resized = terminal.measure()
        let (changed, running) = model.withLock { ($0.changed, !$0.model.running.isEmpty) }
        let idle: Duration = running ? .milliseconds(100) : .seconds(1)
        if resized || (changed && now - lastDraw >= Self.frameInterval) || now - lastDraw >= idle {
          draw(&terminal)
          lastDraw = now
        }
      }
      let reading = terminal.entered && terminal.inForeground
      var fds = [pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]
      if reading { fds.append(pollfd(fd: terminal.input, events: Int16(POLLIN), revents: 0)) }
      _ = poll(&fds, nfds_t(fds.count), Int32(Self.frameInterval.components.attoseconds / 1_000_000_000_000_000))
      if fds[0].revents != 0 { wake.drain() }
      // Read only in the foreground: an interactive task may have it now (and a read from the
      // background would stop runner).
      guard reading, fds[1].revents != 0, terminal.inForeground else { continue }
      var bytes = [UInt8](repeating: 0, count: 256)
      let count = read(terminal.input, &bytes, bytes.count)
      if count <= 0 {
        // The terminal is gone when it has no foreground left to ask about.
        if count == 0 || (errno != EINTR && errno != EAGAIN && tcgetpgrp(terminal.input) < 0) { hungUp = true }
        continue
      }
      pending += bytes[..<count]
      let keys = LiveKey.parse(pending)
      pending = LiveKey.incomplete(pending)
      guard !keys.isEmpty else { continue }
      let page = terminal.size.height - 3
      if keys.contains(.repaint) { terminal.repaint() }
      model.withLock { shared in
        for key in keys { shared.model.press(key, page: page) }
        shared.changed = true
      }
      draw(&terminal)
      lastDraw = ContinuousClock.now
    }
  }

  private func draw(_ terminal: inout LiveTerminal) {
    let now = origin.withLock { $0.map { ContinuousClock.now - $0 } } ?? .zero
    let (width, height) = terminal.size
    let frame = model.withLock { shared in
      shared.changed = false
      return shared.model.frame(width: width, height: height, now: now, style: style)
    }
    terminal.draw(frame)
  }
}
