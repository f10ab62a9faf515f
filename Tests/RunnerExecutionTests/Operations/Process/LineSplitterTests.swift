import RunnerEvents
import Testing

@testable import RunnerBasics
@testable import RunnerExecution
@testable import RunnerProcess

@Suite struct LineSplitterTests {
  private func split(_ chunks: [[UInt8]]) -> [CollectingSink.Line] {
    let sink = RawSink()
    var splitter = LineSplitter(stream: .stderr)
    for chunk in chunks { chunk.withUnsafeBytes { splitter.feed($0, to: sink) } }
    splitter.finish(to: sink)
    return sink.pieces
  }

  @Test func linesSpanningChunksAreJoined() {
    let pieces = split([Array("ab\ncd".utf8), Array("ef\n\ngh".utf8)])
    #expect(pieces.map { String(decoding: $0.bytes, as: UTF8.self) } == ["ab\n", "cdef\n", "\n", "gh"])
    #expect(pieces.map(\.complete) == [true, true, true, false])
    #expect(pieces.allSatisfy { $0.stream == .stderr })
  }

  /// The whole lines of one read reach the sink in one call, straight from the read.
  @Test func theWholeLinesOfAReadAreOneCall() {
    let pieces = split([Array("a\nbb\nccc\ndd".utf8), Array("d\ne\nf\n".utf8)])
    #expect(pieces.map { String(decoding: $0.bytes, as: UTF8.self) } == ["a\nbb\nccc\n", "ddd\n", "e\nf\n"])
  }

  @Test func linesSplitAndTheLastOnesAreFoundFromTheEnd() {
    var text = Array("one\n\nthree\nfour\n".utf8)
    text.withUnsafeBytes { bytes in
      let lines = OutputLines(bytes)
      var seen: [String] = []
      lines.forEach { seen.append(String(decoding: $0, as: UTF8.self)) }
      #expect(seen == ["one", "", "three", "four"])
      #expect(lines.last(2).map { String(decoding: $0, as: UTF8.self) } == ["three", "four"])
      #expect(lines.last(10).map { String(decoding: $0, as: UTF8.self) } == ["one", "", "three", "four"])
    }
    text = Array("\n".utf8)
    text.withUnsafeBytes { #expect(OutputLines($0).last(3).map(\.count) == [0]) }
  }

  @Test func longPartialLinesBecomeFragments() {
    let chunk = [UInt8](repeating: 0x41, count: 64 << 10)
    let pieces = split(Array(repeating: chunk, count: 40) + [Array("\n".utf8)])
    #expect(pieces.reduce(0) { $0 + $1.bytes.count } == 40 << 16 + 1)  // and the newline
    #expect(pieces.dropLast().allSatisfy { !$0.complete && $0.bytes.count == LineSplitter.fragmentLimit })
    #expect(pieces.last?.complete == true)
  }
}

/// Records each call as it comes, without joining fragments.
private final class RawSink: OutputLineSink, @unchecked Sendable {
  // @unchecked: used from one test's thread only, never shared.
  var pieces: [CollectingSink.Line] = []

  /// Each run of lines as one piece (newlines kept), each fragment as one.
  func receive(lines: OutputLines, stream: OutputStreamKind) {
    pieces.append(.init(stream: stream, bytes: Array(lines.bytes), complete: true))
  }

  func receive(fragment: UnsafeRawBufferPointer, stream: OutputStreamKind) {
    pieces.append(.init(stream: stream, bytes: Array(fragment), complete: false))
  }
}

/// What `TaskOutput` hands its observer.
private final class LinesObserver: RunObserver, @unchecked Sendable {
  // @unchecked: used from one test's thread only, never shared.
  var lines: [[UInt8]] = []
  var unfinished: [String] = []
  let wantsUnfinished: Bool
  init(wantsUnfinished: Bool = false) { self.wantsUnfinished = wantsUnfinished }
  func record(_ event: RunEvent) {}
  func unfinished(task: Int, stream: OutputStreamKind, bytes: UnsafeRawBufferPointer) {
    unfinished.append(String(decoding: bytes, as: UTF8.self))
  }
  func output(task: Int, stream: OutputStreamKind, lines received: OutputLines, time: Duration) {
    received.forEach { lines.append(Array($0)) }
  }
}

@Suite struct TaskOutputTests {
  /// A line not finished yet (a progress bar) goes on as it stands, for the live view; with a
  /// secret, never a beginning of it.
  @Test func anUnfinishedLineGoesOnMaskedAndNeverWithASecretsBeginning() {
    let observer = LinesObserver(wantsUnfinished: true)
    let output = TaskOutput(
      task: 0, observer: observer, clock: SystemClock(), start: .now, mask: SecretMask(values: ["hunter2"]))
    var splitter = LineSplitter(stream: .stdout)
    for chunk in ["load 10%", "\rload 20% hunter2 ok", "\rload 30% hun", "ter2\n"] {
      Array(chunk.utf8).withUnsafeBytes { splitter.feed($0, to: output) }
    }
    // A secret whole is masked; the last 6 bytes (a secret is 7) are held back.
    #expect(observer.unfinished == ["lo", "load 10%\rload 20% ", "load 10%\rload 20% *** ok\rload 3"])
    #expect(observer.lines.map { String(decoding: $0, as: UTF8.self) } == ["load 10%\rload 20% *** ok\rload 30% ***"])
    // Nobody listening: nothing is masked or passed on.
    let quiet = LinesObserver()
    let plain = TaskOutput(
      task: 0, observer: quiet, clock: SystemClock(), start: .now, mask: SecretMask(values: ["x1y2z3"]))
    Array("50%".utf8).withUnsafeBytes { plain.receive(unfinished: $0, stream: .stdout) }
    #expect(quiet.unfinished.isEmpty)
  }

  /// After a 1 MiB cut, the bytes held back (where a secret may begin) come before the rest of
  /// the line: the secret is masked whole, not shown from its second byte.
  @Test func anUnfinishedLineAfterACutIsMaskedWithWhatWasHeldBack() {
    let observer = LinesObserver(wantsUnfinished: true)
    let output = TaskOutput(
      task: 0, observer: observer, clock: SystemClock(), start: .now, mask: SecretMask(values: ["hunter2"]))
    let long = [UInt8](repeating: 0x78, count: TaskOutput.maximumLine - 4) + Array("hunt".utf8)
    long.withUnsafeBytes { output.receive(fragment: $0, stream: .stdout) }
    Array("er2 done 50%".utf8).withUnsafeBytes { output.receive(unfinished: $0, stream: .stdout) }
    #expect(observer.unfinished == ["xx*** do"])
    #expect(!observer.unfinished.joined().contains("er2"))
  }

  /// A line of exactly `maximumLine` bytes is passed on when it reaches the limit; its own
  /// newline, arriving next, ends it and is not an empty line of its own.
  @Test func aLineOfExactlyTheLimitIsOneLine() {
    let observer = LinesObserver()
    let output = TaskOutput(task: 0, observer: observer, clock: SystemClock(), start: .now)
    let long = [UInt8](repeating: 0x41, count: TaskOutput.maximumLine)
    long.withUnsafeBytes { output.receive(fragment: $0, stream: .stdout) }
    Array("\nnext\n".utf8).withUnsafeBytes { output.receive(lines: OutputLines($0), stream: .stdout) }
    #expect(observer.lines.map(\.count) == [TaskOutput.maximumLine, 4])
    #expect(output.tail.last == "next")
  }
}
