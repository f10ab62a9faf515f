import Testing

@testable import RunnerBasics
@testable import RunnerExecution

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
    #expect(pieces.map { String(decoding: $0.bytes, as: UTF8.self) } == ["ab", "cdef", "", "gh"])
    #expect(pieces.map(\.complete) == [true, true, true, false])
    #expect(pieces.allSatisfy { $0.stream == .stderr })
  }

  @Test func longPartialLinesBecomeFragments() {
    let chunk = [UInt8](repeating: 0x41, count: 64 << 10)
    let pieces = split(Array(repeating: chunk, count: 40) + [Array("\n".utf8)])
    #expect(pieces.reduce(0) { $0 + $1.bytes.count } == 40 << 16)
    #expect(pieces.dropLast().allSatisfy { !$0.complete && $0.bytes.count == LineSplitter.fragmentLimit })
    #expect(pieces.last?.complete == true)
  }
}

/// Records each call as it comes, without joining fragments.
private final class RawSink: OutputLineSink, @unchecked Sendable {
  // @unchecked: used from one test's thread only, never shared.
  var pieces: [CollectingSink.Line] = []

  func receive(_ line: UnsafeRawBufferPointer, stream: OutputStreamKind, complete: Bool) {
    pieces.append(.init(stream: stream, bytes: Array(line), complete: complete))
  }
}
