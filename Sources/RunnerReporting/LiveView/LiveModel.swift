import RunnerBasics
import RunnerEvents
import RunnerProcess

/// What the live view shows, apart from the terminal: every task's state and output, and where
/// the person looking is (the chosen task, the filter, the scroll). Updated by the run's events
/// and by keys; drawn by `frame(width:height:now:)`.
struct LiveModel {
  struct Row {
    var state = TaskState.pending
    var started: Duration?
    var ended: Duration?
    var attempt = 0
    var reason: String?
    /// What the task is doing besides its command.
    var note: Note?
  }

  let names: [String]
  /// The run's tasks, in the order the run lists them.
  let members: [Int]
  /// The widest name of the run's tasks, in columns.
  let longest: Int
  /// By task index; nil for a task not in the run.
  private(set) var rows: [Row?]
  private(set) var output = OutputTails()
  /// Tasks running, in the order they started.
  private(set) var running: [Int] = []
  /// Tasks that failed, in that order.
  private(set) var failed: [Int] = []
  /// Tasks that ended otherwise, in that order.
  private(set) var finished: [Int] = []
  var stopping = false
  /// The line each task has begun and not finished, by stream.
  private(set) var unfinished: [Int: [OutputStreamKind: [UInt8]]] = [:]

  /// The task chosen with the keys; nil follows the newest running task.
  private(set) var chosen: Int?
  private(set) var failedOnly = false
  /// The output line (counted from the first the task printed) at the top of the output pane;
  /// nil follows the end.
  private(set) var anchor: Int?

  enum Note: Equatable {
    case waiting(gate: String)
    /// A service whose gates passed.
    case ready
    case stopping
    case retrying(String)

    var text: String {
      switch self {
      case .waiting(let gate): "waiting for \(gate)"
      case .ready: "ready"
      case .stopping: "stopping"
      case .retrying(let text): text
      }
    }
  }

  init(names: [String], members: [Int], output: OutputTails = OutputTails()) {
    self.names = names
    self.members = members
    longest = members.map { ScreenText.width(names[$0]) }.max() ?? 0
    self.output = output
    rows = Array(repeating: nil, count: names.count)
    for task in members { rows[task] = Row() }
  }

  mutating func record(_ event: RunEvent) {
    guard let task = event.task, rows.indices.contains(task), var row = rows[task] else { return }
    switch event.kind {
    case .state(let state, let attempt, let reason):
      let was = row.state
      // A task ends once (a late event for it changes nothing).
      if was.isFinal { return }
      row.state = state
      if state != .executing { running.removeAll { $0 == task } }
      row.attempt = max(row.attempt, attempt)
      if state == .executing {
        if was != .executing { row.started = event.time }
        row.note = nil
        if !running.contains(task) { running.append(task) }
      }
      if state.isFinal {
        row.ended = event.time
        row.reason = reason
        row.note = nil
        if state == .failed { failed.append(task) } else { finished.append(task) }
        output.end(task)
      }
    case .waiting(let gate): row.note = .waiting(gate: gate)
    case .serviceReady: row.note = .ready
    case .serviceStopping: row.note = .stopping
    case .retrying(let attempt, let delay, let reason):
      row.note = .retrying("attempt \(attempt) in \(formatDuration(delay)) after: \(reason)")
    default: return
    }
    rows[task] = row
  }

  mutating func append(_ task: Int, _ stream: OutputStreamKind, _ bytes: UnsafeRawBufferPointer) {
    output.append(task, bytes)
    if unfinished[task] != nil { unfinished[task]![stream] = nil }
  }

  /// The line the task has begun on a stream, as it stands, shown after its lines.
  mutating func setUnfinished(_ task: Int, _ stream: OutputStreamKind, _ bytes: UnsafeRawBufferPointer) {
    unfinished[task, default: [:]][stream] = bytes.isEmpty ? nil : Array(bytes)
  }

  /// The lines the task has begun and not finished: stdout's, then stderr's.
  func begun(_ task: Int) -> [[UInt8]] {
    guard let streams = unfinished[task] else { return [] }
    return [OutputStreamKind.stdout, .stderr].compactMap { streams[$0] }
  }

  /// The tasks in the list, top to bottom: failed, running, waiting, then the others that
  /// ended, the latest first. With the filter, only the failed.
  func order() -> [Int] {
    if failedOnly { return failed }
    var list = failed + running
    for task in members where rows[task].map({ $0.state == .pending || $0.state == .ready }) ?? false {
      list.append(task)
    }
    list.append(contentsOf: finished.reversed())
    return list
  }

  /// The task whose output is shown.
  var shown: Int? {
    if let chosen, !failedOnly || failed.contains(chosen) { return chosen }
    if failedOnly { return failed.last }
    return running.last ?? failed.last ?? finished.last
  }

  /// - Parameter page: the rows of the output pane.
  mutating func press(_ key: LiveKey, page: Int) {
    switch key {
    case .up, .down:
      let list = order()
      guard !list.isEmpty else { return }
      let at = shown.flatMap { list.firstIndex(of: $0) } ?? 0
      chosen = list[key == .up ? max(0, at - 1) : min(list.count - 1, at + 1)]
      anchor = nil
    case .failedOnly:
      failedOnly.toggle()
      if failedOnly, let chosen, !failed.contains(chosen) { self.chosen = nil }
      anchor = nil
    case .pageUp, .pageDown, .home, .end:
      // The task scrolled stays shown, whichever starts next.
      chosen = shown
      scroll(key, page: max(1, page))
    case .repaint: break
    }
  }

  private mutating func scroll(_ key: LiveKey, page: Int) {
    guard let task = shown else { return }
    // Following, the lines a task has begun take rows of the page.
    let page = anchor == nil ? max(1, page - begun(task).count) : page
    let (kept, dropped) = output.count(of: task)
    let last = dropped + max(0, kept - page)
    let top = max(dropped, anchor ?? last)
    switch key {
    case .pageUp: anchor = max(dropped, top - page)
    case .pageDown: anchor = top + page >= last ? nil : top + page
    case .home: anchor = kept > page ? dropped : nil
    default: anchor = nil
    }
  }
}
