import Foundation
import RunnerModel
import Testing

@testable import RunnerCache

/// A record's decision in `.runner/state` (the `D` line): kept whatever its text holds, read
/// from a state of the version before (which had none), and passed over when a later runner
/// adds to it.
@Suite struct StateDecisionTests {
  static func record() -> TaskRecord {
    var record = StateLogTests.record("a-1")
    record.outcome = .restoredRemotely
    record.why = "src/odd\tname\nwith\\escapes.c changed"
    record.variables = "CC=0123456789ab\u{1F}PATH=ba9876543210"
    record.inputs = "gen[mode=x;y]=aaaaaaaaaaaa"
    return record
  }

  @Test func aDecisionRoundTripsWhateverItsTextHolds() throws {
    let bytes = BuildState(tasks: ["a": Self.record()]).encoded()
    let read = try BuildState(decoding: bytes, path: "state").tasks["a"]
    #expect(read?.outcome == .restoredRemotely)
    #expect(read?.why == Self.record().why)
    #expect(read?.variables == Self.record().variables)
    #expect(read?.inputs == Self.record().inputs)
    #expect(String(decoding: bytes.prefix(15), as: UTF8.self) == "runner-state 7\n")
  }

  /// A file that is not there is a record without content: `-` in the state, never a word
  /// that could be a hash; `missing`, as the runner before wrote it, reads the same.
  @Test func aFileNotThereHasNoContentAndNoSentinel() throws {
    var record = StateLogTests.record("a-1")
    record.outputs = [FileRecord(path: "out/gone", content: nil)]
    let bytes = BuildState(tasks: ["a": record]).encoded()
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(text.contains("\nO\tout/gone\t-\t0\t"), "\(text)")
    #expect(!text.contains("missing"))
    #expect(try BuildState(decoding: bytes, path: "state").tasks["a"]?.outputs.first?.content == nil)
    let older = Array(text.replacingOccurrences(of: "\nO\tout/gone\t-\t", with: "\nO\tout/gone\tmissing\t").utf8)
    let decoded = BuildState.decode(resealed(older), path: "state")
    #expect(decoded.damage == nil)
    #expect(decoded.state.tasks["a"]?.outputs.first.map { $0.path == "out/gone" && $0.content == nil } == true)
  }

  @Test func aStateOfAVersionBeforeReadsAndIsMarkedForAWholeWrite() throws {
    var bytes = BuildState(tasks: ["a": StateLogTests.record("a-1")]).encoded()
    bytes.replaceSubrange(0..<15, with: Array("runner-state 4\n".utf8))
    let decoded = BuildState.decode(bytes, path: "state")
    #expect(decoded.damage == nil)
    #expect(decoded.previousVersion)
    #expect(decoded.state.tasks["a"]?.fingerprint == "a-1")
    #expect(decoded.state.tasks["a"]?.outcome == nil)
    bytes.replaceSubrange(0..<15, with: Array("runner-state 5\n".utf8))
    #expect(BuildState.decode(bytes, path: "state").previousVersion)
    bytes.replaceSubrange(0..<15, with: Array("runner-state 3\n".utf8))
    #expect(BuildState.decode(bytes, path: "state").otherVersion)
  }

  @Test func aLaterRunnersOutcomeAndFieldsArePassedOver() throws {
    var text = String(decoding: BuildState(tasks: ["a": Self.record()]).encoded(), as: UTF8.self)
    text = text.replacingOccurrences(of: "\nD\trestored-remote\t", with: "\nD\tsomething-new\t")
    text = text.replacingOccurrences(of: "=aaaaaaaaaaaa\n", with: "=aaaaaaaaaaaa\tmore\tfields\n")
    // Re-sealed: each segment ends with the SHA-256 of its lines.
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    lines.removeLast()
    var body = LineWriter()
    body.bytes = Array((lines.dropFirst().joined(separator: "\n") + "\n").utf8)
    body.appendTrailer()
    let read = BuildState.decode(Array((lines[0] + "\n").utf8) + body.bytes, path: "state")
    #expect(read.damage == nil, "\(read.damage ?? "")")
    #expect(read.state.tasks["a"]?.outcome == nil)
    #expect(read.state.tasks["a"]?.inputs == "gen[mode=x;y]=aaaaaaaaaaaa")
  }

  /// A state's text with its one segment sealed again (each segment ends with the SHA-256 of
  /// its lines).
  func resealed(_ bytes: [UInt8]) -> [UInt8] {
    let text = String(decoding: bytes, as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    lines.removeLast()
    var body = LineWriter()
    body.bytes = Array((lines.dropFirst().joined(separator: "\n") + "\n").utf8)
    body.appendTrailer()
    return Array((lines[0] + "\n").utf8) + body.bytes
  }

  @Test func inputDigestsNameTheFirstEntryThatDiffers() {
    let before = InputDigests.variables([("CC", "gcc"), ("PATH", "/bin")])
    #expect(InputDigests.firstDifference(before, InputDigests.variables([("CC", "clang"), ("PATH", "/bin")])) == "CC")
    #expect(InputDigests.firstDifference(before, InputDigests.variables([("PATH", "/bin")])) == "CC")
    #expect(InputDigests.firstDifference(before, before) == nil)
  }
}
