import RunnerBasics
import RunnerEvents

extension LiveModel {
  /// Styles for the frame: SGR codes, or none.
  struct Style {
    var color: Bool

    func paint(_ code: String, _ text: String) -> String {
      color && !code.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
  }

  static let spinner = Array("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

  /// The screen: `height` rows of exactly `width` columns (SGR codes aside). A header with the
  /// run's progress, the list of tasks beside the chosen task's output, and the keys.
  func frame(width: Int, height: Int, now: Duration, style: Style) -> [String] {
    guard width >= 20, height >= 4 else {
      return [ScreenText.fit(progressText(now: now), width)] + Array(repeating: "", count: max(0, height - 1))
    }
    var rows = [header(width: width, now: now, style: style)]
    let body = height - 2
    let list = order()
    var listWidth = min(max(24, width * 2 / 5), max(16, longest + 12))
    // Too narrow for the output beside it: the list alone.
    if width - listWidth - 1 < 10 { listWidth = width }
    let outputWidth = width - listWidth - 1
    let left = listRows(list, width: listWidth, rows: body, now: now, style: style)
    let right =
      outputWidth >= 10
      ? outputRows(width: outputWidth, rows: body, now: now, style: style)
      : []
    for index in 0..<body {
      rows.append(outputWidth >= 10 ? left[index] + style.paint("2", "│") + right[index] : left[index])
    }
    let keys = " ↑↓ task  PgUp/PgDn scroll  g/G top/end  f " + (failedOnly ? "all" : "failed") + "  ^C stop"
    rows.append(style.paint("2", ScreenText.fit(keys, width)))
    return rows
  }

  func progressText(now: Duration) -> String {
    let done = failed.count + finished.count
    var text = "\(done)/\(members.count) · \(running.count) running"
    if !failed.isEmpty { text += " · \(failed.count) failed" }
    return text + " · " + Self.clock(now)
  }

  private func header(width: Int, now: Duration, style: Style) -> String {
    let done = failed.count + finished.count
    let barWidth = max(0, min(30, width / 4))
    let filled = members.isEmpty ? barWidth : min(barWidth, barWidth * done / members.count)
    let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
    var tail = (failedOnly ? " [failed only]" : "") + " " + progressText(now: now)
    if stopping { tail += " · stopping (Ctrl-C again: kill now)" }
    let text = ScreenText.fit(tail, max(0, width - 8 - barWidth))
    return style.paint("1", " runner ") + style.paint(failed.isEmpty ? "32" : "31", bar) + text
  }

  private func listRows(_ list: [Int], width: Int, rows: Int, now: Duration, style: Style) -> [String] {
    let at = shown.flatMap { list.firstIndex(of: $0) } ?? 0
    let top = max(0, min(at - rows / 3, list.count - rows))
    var out: [String] = []
    for index in top..<min(list.count, top + rows) {
      let task = list[index]
      let row = self.rows[task] ?? Row()
      let (icon, code) = Self.icon(row, now: now)
      let time = String((duration(row, now: now).map(formatDuration) ?? "").prefix(7))
      // `›✓ name   1.25s `: the chosen task marked, the time right-aligned in 7 columns.
      let name = ScreenText.fit(names[task], width - 12)
      let text = name + " " + String(repeating: " ", count: 7 - time.count) + time + " "
      if task == shown {
        out.append(style.paint("7", "›" + icon + " " + text))
      } else {
        out.append(" " + style.paint(code, icon) + " " + text)
      }
    }
    if failedOnly, list.isEmpty { out.append(ScreenText.fit("  no task failed", width - 1) + " ") }
    while out.count < rows { out.append(String(repeating: " ", count: width)) }
    return out
  }

  private func outputRows(width: Int, rows: Int, now: Duration, style: Style) -> [String] {
    let blank = String(repeating: " ", count: width)
    guard let task = shown, let row = self.rows[task] else {
      let none = failedOnly ? " no task has failed yet" : " no task has started"
      return [ScreenText.fit(none, width)] + Array(repeating: blank, count: rows - 1)
    }
    // Following, the lines the task has begun are the last.
    let begun = anchor == nil ? Array(self.begun(task).suffix(rows - 1)) : []
    let page = rows - 1 - begun.count
    let (kept, dropped) = output.count(of: task)
    let last = max(0, kept - page)
    let first = anchor.map { min(max(0, $0 - dropped), last) } ?? last
    var title = " " + names[task] + " · " + describe(row, now: now)
    if anchor != nil, first < last { title += " · \(last - first) line(s) below, End follows" }
    if dropped > 0, first == 0 { title += " · \(dropped) earlier line(s) not kept" }
    var out = [style.paint("1", ScreenText.fit(title, width))]
    output.forEachLine(of: task, from: first, count: page) { line in
      out.append(ScreenText.fit(" " + ScreenText.line(line, width: width - 1), width))
    }
    for line in begun {
      out.append(line.withUnsafeBytes { ScreenText.fit(" " + ScreenText.line($0, width: width - 1), width) })
    }
    if kept == 0, begun.isEmpty {
      out.append(style.paint("2", ScreenText.fit(row.state.isFinal ? " (no output)" : " (no output yet)", width)))
    }
    while out.count < rows { out.append(blank) }
    return out
  }

  /// `running · 3.40s`, `failed: … exit code 2 (1.20s)`, `succeeded · up to date`.
  private func describe(_ row: Row, now: Duration) -> String {
    var text = row.state == .executing ? "running" : row.state.rawValue
    if case .retrying = row.note { text = "retrying" }
    // A final state's reason says its time, or why it took none.
    if let reason = row.reason { text += (row.state == .succeeded ? " · " : ": ") + reason }
    if let note = row.note { text += " · " + note.text }
    if row.attempt > 1 { text += " · attempt \(row.attempt)" }
    if !row.state.isFinal, let time = duration(row, now: now) { text += " · " + formatDuration(time) }
    return ScreenText.plain(text, width: 400)
  }

  private func duration(_ row: Row, now: Duration) -> Duration? {
    guard let started = row.started else { return nil }
    return (row.ended ?? now) - started
  }

  /// The row's mark and its colour.
  static func icon(_ row: Row, now: Duration) -> (String, String) {
    switch row.state {
    case .pending, .ready: return row.note == nil ? ("·", "2") : ("…", "33")
    case .executing:
      switch row.note {
      case .ready: return ("●", "32")
      case .stopping: return ("■", "2")
      case .waiting: return ("…", "33")
      case .retrying: return ("↻", "33")
      case nil: break
      }
      let tick = Int(now.components.seconds * 10 + now.components.attoseconds / 100_000_000_000_000_000)
      return (String(spinner[tick % spinner.count]), "36")
    case .succeeded: return ("✓", "32")
    case .failed: return ("✗", "1;31")
    case .cancelled: return ("⊘", "33")
    case .skipped: return ("↷", "33")
    }
  }

  static func clock(_ time: Duration) -> String {
    let seconds = Int(time.components.seconds)
    return String(format2: seconds / 60) + ":" + String(format2: seconds % 60)
  }
}
