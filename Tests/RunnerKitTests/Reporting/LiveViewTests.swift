import RunnerEvents
import Testing

@testable import RunnerReporting

/// The live view's parts that need no terminal: what it makes of task output and keys, what it
/// keeps, and the frames it draws.
@Suite struct LiveViewTests {
  func shown(_ text: String, width: Int = 80) -> String {
    Array(text.utf8).withUnsafeBytes { ScreenText.line($0, width: width) }
  }

  @Test func escapeSequencesAndControlsNeverReachTheScreen() {
    #expect(shown("\u{1B}[31mred\u{1B}[0m plain") == "red plain")
    #expect(shown("a\u{1B}]0;title\u{07}b\u{1B}]8;;http://x\u{1B}\\c") == "abc")
    #expect(shown("\u{1B}[2J\u{1B}[?1049l\u{1B}[10;10Hmoved\u{1B}(B") == "moved")
    #expect(shown("bell\u{07}back\u{08}\u{7F}") == "bellback")
    // A C1 control sequence introducer (as a character) starts a sequence too.
    #expect(shown("x\u{9B}2Jy") == "xy")
  }

  @Test func aCarriageReturnKeepsWhatCameAfterItAndTabsBecomeSpaces() {
    #expect(shown("progress 10%\rprogress 20%\rdone") == "done")
    #expect(shown("dos line\r") == "dos line")
    #expect(shown("a\tb") == "a       b")
    #expect(shown("abcdefgh\tx") == "abcdefgh        x")
  }

  @Test func linesAreCutByColumnsNotCharacters() {
    // A cut line says so.
    #expect(shown("0123456789", width: 4) == "012…")
    #expect(shown("0123", width: 4) == "0123")
    #expect(shown("日本語のテキスト", width: 5) == "日本…")
    #expect(shown("日本語のテキスト", width: 6) == "日本…")
    #expect(ScreenText.width("e\u{301}") == 1)
    #expect(ScreenText.fit("abcdef", 4) == "abc…")
    #expect(ScreenText.fit("ab", 4) == "ab  ")
    #expect(ScreenText.fit("日本語", 5) == "日本…")
  }

  @Test func keysAreReadFromTheirSequences() {
    #expect(LiveKey.parse(Array("\u{1B}[A\u{1B}[B\u{1B}OA".utf8)) == [.up, .down, .up])
    #expect(LiveKey.parse(Array("\u{1B}[5~\u{1B}[6~\u{1B}[H\u{1B}[4~".utf8)) == [.pageUp, .pageDown, .home, .end])
    #expect(LiveKey.parse(Array("jkgGfx".utf8)) == [.down, .up, .home, .end, .failedOnly])
    // An unknown sequence is skipped whole: its letters are not keys.
    #expect(LiveKey.parse(Array("\u{1B}[1;5Cj".utf8)) == [.down])
    // A key split across two reads.
    let first = Array("k\u{1B}[5".utf8)
    #expect(LiveKey.parse(first) == [.up])
    let rest = LiveKey.incomplete(first) + Array("~".utf8)
    #expect(LiveKey.parse(rest) == [.pageUp])
    #expect(LiveKey.incomplete(Array("\u{1B}[A".utf8)).isEmpty)
  }

  func append(_ tails: inout OutputTails, _ task: Int, _ text: String) {
    Array(text.utf8).withUnsafeBytes { tails.append(task, $0) }
  }

  func lines(_ tails: OutputTails, _ task: Int, from: Int = 0, count: Int = 1000) -> [String] {
    var out: [String] = []
    tails.forEachLine(of: task, from: from, count: count) { out.append(String(decoding: $0, as: UTF8.self)) }
    return out
  }

  @Test func aTaskKeepsItsLastLinesAndSaysHowManyWentBefore() {
    var tails = OutputTails(perTask: 100, budget: 10_000)
    for index in 0..<40 { append(&tails, 1, "line \(index)\n") }
    let (kept, dropped) = tails.count(of: 1)
    #expect(kept + dropped == 40)
    #expect(dropped > 0)
    #expect(lines(tails, 1).last == "line 39")
    #expect(lines(tails, 1).first == "line \(dropped)")
    // From near the end (found backwards) and from the start, the same lines.
    #expect(lines(tails, 1, from: kept - 2) == ["line 38", "line 39"])
    #expect(lines(tails, 1, from: 1, count: 1) == ["line \(dropped + 1)"])
  }

  @Test func pastTheRunsBudgetTasksThatEndedGiveUpTheirBytesFirst() {
    var tails = OutputTails(perTask: 1 << 20, budget: 64 << 10)
    let line = String(repeating: "x", count: 99) + "\n"
    for _ in 0..<400 { append(&tails, 1, line) }
    tails.end(1)
    for _ in 0..<400 { append(&tails, 2, line) }
    #expect(tails.size <= 64 << 10)
    #expect(tails.count(of: 2).dropped == 0)
    #expect(tails.count(of: 1).dropped > 0)
    #expect(lines(tails, 1).last == String(line.dropLast()))
  }

  func event(_ task: Int, _ state: TaskState, at seconds: Int, reason: String? = nil) -> RunEvent {
    RunEvent(time: .seconds(seconds), task: task, kind: .state(state, attempt: 1, reason: reason))
  }

  /// A frame without SGR codes, each row checked to be exactly `width` wide, then with its
  /// trailing spaces cut.
  func plain(_ model: LiveModel, width: Int = 80, height: Int = 8, now: Int = 10) -> [String] {
    let frame = model.frame(width: width, height: height, now: .seconds(now), style: .init(color: false))
    for row in frame { #expect(ScreenText.width(row) == width, "\(row)") }
    return frame.map { String($0.reversed().drop { $0 == " " }.reversed()) }
  }

  func model() -> LiveModel {
    var model = LiveModel(names: ["build", "lint", "test", "other"], members: [0, 1, 2])
    model.record(event(0, .executing, at: 1))
    model.record(event(1, .executing, at: 1))
    Array("one\ntwo\n".utf8).withUnsafeBytes { model.append(0, .stdout, $0) }
    Array("lint-problem\n".utf8).withUnsafeBytes { model.append(1, .stdout, $0) }
    model.record(event(1, .failed, at: 3, reason: "exit code 3"))
    return model
  }

  @Test func aFrameListsFailedThenRunningThenWaitingBesideTheShownTasksOutput() {
    let frame = plain(model())
    #expect(frame.count == 8)
    #expect(frame[0].contains("1/3 · 1 running · 1 failed · 00:10"))
    #expect(frame[1].hasPrefix(" ✗ lint "))
    #expect(frame[1].contains("2.00s"))
    #expect(frame[2].hasPrefix("›⠋ build"))
    #expect(frame[2].contains("9.00s"))
    #expect(frame[3].hasPrefix(" · test"))
    // The newest running task is shown until a key chooses another.
    #expect(frame[1].contains("│ build · running · 9.00s"))
    #expect(frame[2].hasSuffix("│ one"))
    #expect(frame[3].hasSuffix("│ two"))
    #expect(frame[7] == " ↑↓ task  PgUp/PgDn scroll  g/G top/end  f failed  ^C stop")
    #expect(!frame.joined().contains("other"))
  }

  @Test func keysChooseATaskFilterTheFailedAndScroll() {
    var model = model()
    model.press(.up, page: 5)
    var frame = plain(model)
    #expect(frame[1].hasSuffix("│ lint · failed: exit code 3"))
    #expect(frame[2].hasSuffix("│ lint-problem"))
    model.press(.down, page: 5)
    model.press(.down, page: 5)
    #expect(plain(model)[1].contains("│ test · pending"))
    model.press(.failedOnly, page: 5)
    frame = plain(model)
    #expect(frame[0].contains("failed only"))
    #expect(frame[1].hasPrefix("›✗ lint"))
    #expect(frame[2].hasPrefix("                 │ lint-problem"))
    model.press(.failedOnly, page: 5)
    // Scrolling: the top line moves; End follows again.
    for index in 0..<20 { Array("more \(index)\n".utf8).withUnsafeBytes { model.append(0, .stdout, $0) } }
    #expect(plain(model)[1].contains("│ build"))
    #expect(plain(model).last(where: { $0.contains("│") })?.hasSuffix("more 19") == true)
    model.press(.pageUp, page: 5)
    frame = plain(model)
    #expect(frame[1].contains("5 line(s) below"))
    #expect(frame[6].hasSuffix("more 14"))
    model.press(.home, page: 5)
    #expect(plain(model)[2].hasSuffix("│ one"))
    model.press(.end, page: 5)
    #expect(plain(model)[6].hasSuffix("│ more 19"))
  }

  @Test func aTinyTerminalGetsOneLineOfProgress() {
    let frame = model().frame(width: 15, height: 3, now: .seconds(10), style: .init(color: false))
    #expect(frame.count == 3)
    #expect(frame[0] == "1/3 · 1 runnin…")
  }

  @Test func aNarrowTerminalShowsTheListAloneAndEveryRowFits() {
    var model = model()
    Array("a line far longer than the terminal is wide, cut at its edge\n".utf8).withUnsafeBytes {
      model.append(0, .stdout, $0)
    }
    for width in 20..<40 {
      let frame = plain(model, width: width, height: 6)
      #expect(frame.count == 6)
    }
    #expect(!plain(model, width: 24, height: 6)[1].contains("│"))
    #expect(plain(model, width: 40, height: 6)[1].contains("│"))
  }

  @Test func theLineATaskHasBegunIsShownLastUntilItEnds() {
    var model = model()
    Array("download 10%\rdownload 40%".utf8).withUnsafeBytes { model.setUnfinished(0, .stdout, $0) }
    var frame = plain(model)
    #expect(frame[3].hasSuffix("│ two"))
    #expect(frame[4].hasSuffix("│ download 40%"))
    Array("download 10%\rdownload 100%\n".utf8).withUnsafeBytes { model.append(0, .stdout, $0) }
    frame = plain(model)
    #expect(frame[4].hasSuffix("│ download 100%"))
    #expect(!frame[5].contains("download"))
    // Each stream has its own: a line on stdout does not end stderr's.
    Array("Password: ".utf8).withUnsafeBytes { model.setUnfinished(0, .stderr, $0) }
    Array("log line\n".utf8).withUnsafeBytes { model.append(0, .stdout, $0) }
    frame = plain(model)
    #expect(frame[5].hasSuffix("│ log line"))
    #expect(frame[6].hasSuffix("│ Password:"))
  }

  @Test func aRetryAndAGateHaveTheirMarks() {
    var model = model()
    model.record(RunEvent(time: .seconds(4), task: 0, kind: .retrying(attempt: 2, after: .seconds(1), reason: "boom")))
    model.record(RunEvent(time: .seconds(4), task: 2, kind: .waiting(gate: "file 'x'")))
    let frame = plain(model)
    #expect(frame[2].hasPrefix("›↻ build"))
    #expect(frame[1].contains("│ build · retrying · attempt 2 in 1.00s after: boom"))
    #expect(frame[3].hasPrefix(" … test"))
    model.record(event(0, .executing, at: 5))
    #expect(plain(model)[2].hasPrefix("›⠋ build"))
  }

  @Test func aLateEventForATaskThatEndedChangesNothing() {
    var model = model()
    model.record(event(1, .failed, at: 4, reason: "again"))
    model.record(event(1, .succeeded, at: 5))
    #expect(model.failed == [1])
    #expect(model.finished.isEmpty)
    // A task given back by a remote slot waits again: it is not running twice.
    model.record(event(0, .ready, at: 5))
    #expect(model.running.isEmpty)
    #expect(model.order() == [1, 0, 2])
  }
}
