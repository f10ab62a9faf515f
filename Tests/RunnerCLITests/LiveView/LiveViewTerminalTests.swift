import Foundation
import Testing

/// `--ui tui` on a real terminal (tmux): what a person sees, the keys, Ctrl-C, Ctrl-Z, a resize,
/// an interactive task, and a task that writes escape sequences.
@Suite(.enabled(if: TmuxPane.available, "tmux or python3 is missing (apt-get install tmux)"))
struct LiveViewTerminalTests {
  let directory: URL

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-tui-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  // Swift Testing makes a suite value per test: its directory goes with it.
  func removeDirectory() {
    try? FileManager.default.removeItem(at: directory)
  }

  func write(_ text: String) throws {
    try text.write(to: directory.appendingPathComponent("tasks.yml"), atomically: true, encoding: .utf8)
  }

  /// Makes the file the tasks wait for.
  func release(_ name: String = "go") throws {
    #expect(FileManager.default.createFile(atPath: directory.appendingPathComponent(name).path, contents: Data()))
  }

  var runner: String { "'\(BinaryRunner.executable.path)'" }

  /// Waits, in a task, for the test to `release` it.
  static let waitForGo = "while [ ! -f go ]; do sleep 0.05; done"

  @Test func theViewShowsTasksAndOutputTakesKeysAndLeavesTheSummary() throws {
    try write(
      """
      tasks:
        build: {run: "echo building; \(Self.waitForGo); echo built"}
        lint: {run: "echo lint-problem; exit 3"}
        test: {deps: [build], run: echo tested}
        all: {deps: [test, lint]}
      """)
    defer { removeDirectory() }
    let pane = try TmuxPane(directory: directory)
    defer { pane.close() }
    try pane.type("\(runner) --ui tui -j 4 -k all; echo exit=$?")
    // `all` is skipped as soon as lint fails (-k: it cannot run without lint). Each wait asks
    // for the whole frame: tmux may show the top of a frame before its bottom.
    try pane.wait("lint failed first, build running and shown") { screen in
      screen.count >= 20 && screen[0].hasPrefix(" runner ") && screen[0].contains("2/4 · 1 running · 1 failed")
        && screen[1].hasPrefix(" ✗ lint") && screen[1].contains("│ build · running")
        && screen[2].hasPrefix("›") && screen[2].contains("build") && screen[2].hasSuffix("│ building")
        && screen[3].hasPrefix(" · test") && screen[19].contains("f failed")
    }
    // Up chooses the failed task: its output and why it failed.
    try pane.press("Up")
    try pane.wait("lint's output") { screen in
      screen.count >= 3 && screen[1].hasPrefix("›✗ lint")
        && screen[1].contains("│ lint · failed: 'echo lint-problem; exit 3' failed with exit code 3")
        && screen[2].hasSuffix("│ lint-problem")
    }
    // f: only the failed tasks.
    try pane.press("f")
    try pane.wait("only lint listed") { screen in
      screen.count >= 4 && screen[0].contains("[failed only]") && screen[1].hasPrefix("›✗ lint")
        && !screen[2].contains("build") && !screen[3].contains("test")
    }
    try pane.press("f")
    try release()
    let screen = try pane.wait(for: "exit=1")
    // The view has left; the summary is on the screen, the root cause last.
    #expect(!screen.contains { $0.hasPrefix(" runner ") })
    #expect(screen.contains { $0.hasPrefix("4 task(s): 2 succeeded, 1 failed, 1 skipped") })
    #expect(screen.contains { $0.hasPrefix("✗ lint (tasks.yml:3:3)") })
  }

  @Test func escapeSequencesATaskWritesCannotMoveOrLeaveTheView() throws {
    try write(
      #"""
      tasks:
        noisy:
          run: |
            printf '\033[2J\033[H\033[?1049l\033[10;10Hmoved\033[?25h\033]0;title\007\033[31mred\033[0m\n'
            printf 'step 1\rstep 2\rstep 3\n'
            printf 'marker\n'
            printf 'download 10%%\rdownload 42%%'
            while [ ! -f go ]; do sleep 0.05; done
      """#)
    defer { removeDirectory() }
    let pane = try TmuxPane(directory: directory, width: 80, height: 12)
    defer { pane.close() }
    try pane.type("\(runner) --ui tui noisy; echo exit=$?")
    try pane.wait("the task's output as text, the view in place") { screen in
      screen.count >= 12 && screen[0].hasPrefix(" runner ") && screen[1].contains("│ noisy · running")
        && screen[2].hasSuffix("│ movedred") && screen[3].hasSuffix("│ step 3") && screen[4].hasSuffix("│ marker")
        && screen[5].hasSuffix("│ download 42%")
        && screen[11].contains("^C stop")
    }
    try release()
    try pane.wait(for: "exit=0")
  }

  @Test func ctrlCStopsTheRunAndGivesTheTerminalBack() throws {
    defer { removeDirectory() }
    try write("tasks:\n  long: {run: \"echo started; \(Self.waitForGo)\"}\n")
    let pane = try TmuxPane(directory: directory)
    defer { pane.close() }
    try pane.type("\(runner) --ui tui long; echo exit=$?")
    try pane.wait(for: "│ started")
    try pane.press("C-c")
    let screen = try pane.wait(for: "exit=130")
    #expect(screen.contains { $0 == "interrupted by SIGINT" })
    #expect(!screen.contains { $0.hasPrefix(" runner ") })
    // The terminal's modes are back: echo and line editing.
    try pane.type("stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo | tr '\\n' ' '; echo modes")
    try pane.wait(for: "icanon echo modes")
  }

  @Test func ctrlZStopsTheViewAndFgBringsItBackAtTheNewSize() throws {
    defer { removeDirectory() }
    try write("tasks:\n  long: {run: \"echo started; \(Self.waitForGo); echo finished\"}\n")
    let pane = try TmuxPane(directory: directory)
    defer { pane.close() }
    // No `; echo` after it: bash would run that as soon as runner stops.
    try pane.type("\(runner) --ui tui long")
    try pane.wait(for: "│ started")
    try pane.press("C-z")
    var screen = try pane.wait(for: "Stopped")
    #expect(!screen.contains { $0.hasPrefix(" runner ") })
    try pane.tmux(["resize-window", "-t", "0", "-x", "70", "-y", "10"])
    try pane.type("fg")
    screen = try pane.wait("the view again at 70×10") {
      $0.first?.hasPrefix(" runner ") == true && $0.count >= 10 && $0[9].contains("^C stop")
    }
    #expect(screen[1].contains("│ long · running"))
    try release()
    try pane.wait(for: "1 task(s): 1 succeeded")
    try pane.type("echo exit=$?")
    try pane.wait(for: "exit=0")
  }

  /// A terminal, but a dumb one: lines, and the reason.
  @Test func aDumbTerminalGetsLines() throws {
    defer { removeDirectory() }
    try write("tasks:\n  hello: echo hi\n")
    let pane = try TmuxPane(directory: directory)
    defer { pane.close() }
    try pane.type("TERM=dumb \(runner) --ui tui hello; echo exit=$?")
    let screen = try pane.wait(for: "exit=0")
    #expect(screen.contains { $0.contains("--ui tui needs a terminal (TERM is dumb); showing lines") })
    #expect(screen.contains { $0 == "hello | hi" })
  }

  @Test func anInteractiveTaskHasTheKeyboardAndTheViewComesBack() throws {
    try write(
      """
      tasks:
        first: {run: "echo first-done"}
        ask: {deps: [first], interactive: true, run: "read -p 'name? ' n; echo hello $n"}
        after: {deps: [ask], run: "echo after; \(Self.waitForGo)"}
      """)
    defer { removeDirectory() }
    let pane = try TmuxPane(directory: directory)
    defer { pane.close() }
    try pane.type("\(runner) --ui tui after; echo exit=$?")
    try pane.wait(for: "name?")
    try pane.type("Bob")
    var screen = try pane.wait(for: "│ after")
    #expect(screen[0].hasPrefix(" runner "))
    try release()
    screen = try pane.wait(for: "exit=0")
    #expect(screen.contains { $0 == "hello Bob" })
    #expect(screen.contains { $0.hasPrefix("▶ ask has the terminal") })
  }
}

/// Where the view cannot be had, lines.
@Suite struct LiveViewFallbackTests {
  @Test func withoutATerminalTheRunIsShownInLinesAndSaysWhy() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-tui-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try "tasks:\n  hello: echo hi\n".write(
      to: directory.appendingPathComponent("tasks.yml"), atomically: true, encoding: .utf8)
    let plain = try BinaryRunner.run(
      ["--ui", "tui", "hello"], in: directory, environment: ["TERM": "xterm"], unsetting: ["CI"])
    #expect(plain.status == 0)
    #expect(plain.stderr.contains("warning: --ui tui needs a terminal (stdout is not a terminal); showing lines"))
    #expect(plain.stdout.contains("hello | hi"))
    // In CI, lines without a word.
    let ci = try BinaryRunner.run(["--ui", "tui", "hello"], in: directory, environment: ["CI": "true"])
    #expect(ci.status == 0)
    #expect(!ci.stderr.contains("--ui"))
    try? FileManager.default.removeItem(at: directory)
  }
}
