import Foundation
import RunnerEvents
import RunnerProcess
import Testing

@testable import RunnerExecution
@testable import RunnerKit
@testable import RunnerReporting

/// `--output grouped`: a spool that cannot be created or written loses no line; the task's
/// output is printed as it comes instead.
@Suite struct ConsoleSpoolTests {
  @Test func aSpoolThatFailsToWriteFallsBackToDirectLines() throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    // The spool of task 0 opens /dev/full, whose writes fail with ENOSPC as on a full disk.
    try FileManager.default.createSymbolicLink(atPath: "\(directory)/0.spool", withDestinationPath: "/dev/full")
    let text = try Self.console(spoolDirectory: directory, spoolMemory: 0)
    #expect(text == "a | one\na | two\nb | x\n", "a prints as it comes, b when it ends: \(text)")
  }

  /// Spools live in memory while they fit the run's budget; the one that would pass it moves
  /// to a file with what it held, in order. Neither leaves a file behind.
  @Test(arguments: [0, 8, 1 << 20])
  func spoolsInMemoryMoveToAFileWhenTheyPassTheBudget(budget: Int) throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let text = try Self.console(spoolDirectory: directory, spoolMemory: Int64(budget))
    // a is spooled whole and printed when it ends, then b.
    #expect(text == "a | one\na | two\nb | x\n", "\(text)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [])
  }

  /// A spool that had to move to a file that cannot be made keeps its lines: they are printed.
  @Test func aSpoolThatCannotMoveToAFileFallsBackToDirectLines() throws {
    let text = try Self.console(spoolDirectory: "/nonexistent/spool/dir", spoolMemory: 6)
    // Short lines are spooled as they came: "one\n" and "x\n" fill the budget; a's second
    // line would move a's spool to a file, so a prints what it held (prefixed) and the line;
    // b's spool is printed when b ends.
    #expect(text == "a | one\na | two\nb | x\n", "\(text)")
  }

  /// Long lines are spooled prefixed (the kernel prints them at the end); short ones as they
  /// came, prefixed when printed. Either way the lines print as `--output prefixed` prints
  /// them, each task's together; through a file too, and when its file cannot be made.
  @Test(arguments: [(Int64(1) << 20, false), (0, false), (120, true)])
  func longAndShortLinesPrintAsPrefixedLinesDo(budget: Int64, withoutDirectory: Bool) throws {
    let directory = withoutDirectory ? "/nonexistent/spool/dir" : try Self.temporaryDirectory()
    defer { if !withoutDirectory { try? FileManager.default.removeItem(atPath: directory) } }
    let long = String(repeating: "l", count: 100)
    let lines = [(0, long), (1, "s"), (0, long + "2"), (1, ""), (1, "s3")]
    let text = try Self.console(spoolDirectory: directory, spoolMemory: budget, lines: lines)
    #expect(text == "a | \(long)\na | \(long)2\nb | s\nb | \nb | s3\n", "\(text)")
    if !withoutDirectory { #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == []) }
  }

  /// Short lines are spooled as they came: 10 bytes here, which fit a budget of 10 that the
  /// same lines prefixed (22 bytes) would pass, printing b's line early, before a's.
  @Test func shortLinesFitABudgetTheirPrefixedLinesWouldPass() throws {
    let text = try Self.console(spoolDirectory: "/nonexistent/spool/dir", spoolMemory: 10)
    #expect(text == "a | one\na | two\nb | x\n", "\(text)")
  }

  /// More than the mebibyte `printLines` reads at a time, of short lines and then of one line
  /// longer than that: every line prefixed whole, in order.
  @Test func aSpoolOfMoreThanAPieceIsPrintedLineByLine() throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let short = (0..<400_000).map { "\($0 % 10)" }
    let long = String(repeating: "y", count: 1_500_000)
    let lines = [(0, short.joined(separator: "\n")), (0, long), (0, "end")]
    let text = try Self.console(spoolDirectory: directory, spoolMemory: 1 << 30, lines: lines)
    let expected = (short + [long, "end"]).map { "a | \($0)\n" }.joined()
    #expect(text.count == expected.count && text == expected)
  }

  @Test func shortLinesAreSpooledAsTheyCame() {
    func raw(_ text: String, head: Int) -> Bool {
      var bytes = Array(text.utf8)
      return bytes.withUnsafeMutableBytes {
        ConsoleReporter.spoolsRaw(OutputLines(UnsafeRawBufferPointer($0)), head: Array(repeating: 0x20, count: head))
      }
    }
    #expect(raw(String(repeating: "\n", count: 5000), head: 8))
    #expect(raw(String(repeating: "twenty-nine bytes of text ..\n", count: 200), head: 8))
    #expect(!raw(String(repeating: String(repeating: "x", count: 99) + "\n", count: 100), head: 8))
    #expect(!raw(String(repeating: "x", count: 9000) + "\n", head: 8))
  }

  @Test func aSpoolThatCannotBeCreatedFallsBackToDirectLines() throws {
    let text = try Self.console(spoolDirectory: "/nonexistent/spool/dir", spoolMemory: 0)
    #expect(text == "a | one\nb | x\na | two\n", "every task prints as it comes: \(text)")
  }

  /// Tasks `a` and `b` print `lines` (by default two and one), then both succeed; returns the
  /// task output lines the console printed.
  static func console(
    spoolDirectory: String, spoolMemory: Int64, lines: [(Int, String)] = [(0, "one"), (1, "x"), (0, "two")]
  ) throws -> String {
    let output = try temporaryDirectory() + "/console.txt"
    defer { unlink(output) }
    let fd = open(output, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    #expect(fd >= 0)
    defer { close(fd) }
    let console = ConsoleReporter(
      names: ["a", "b"], selected: [0, 1], useColor: false, descriptor: fd, mode: .grouped,
      spoolDirectory: spoolDirectory, spoolMemory: spoolMemory)
    for (task, line) in lines {
      var bytes = Array((line + "\n").utf8)
      bytes.withUnsafeMutableBytes {
        console.output(task: task, stream: .stdout, lines: OutputLines(UnsafeRawBufferPointer($0)), time: .zero)
      }
    }
    for task in [0, 1] {
      console.record(RunEvent(time: .zero, task: task, kind: .state(.succeeded, attempt: 1, reason: nil)))
    }
    let text = try String(contentsOfFile: output, encoding: .utf8)
    // Only the task output lines, not the ✓ lines.
    return text.split(separator: "\n").filter { $0.contains(" | ") }.map { $0 + "\n" }.joined()
  }

  static func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("runner-spool-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }
}
