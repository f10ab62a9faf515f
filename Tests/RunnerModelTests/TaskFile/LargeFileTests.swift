import Foundation
import Testing

@testable import RunnerModel

/// A file of `TaskFileLoader.largeFileSize` or more is parsed as it is read from disk, its text
/// never held whole; what it means, and every error it gives, must be what the whole text gives.
@Suite struct LargeFileTests {
  let directory: String

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-large-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  /// Enough tasks to pass the size at which files are streamed, then `tail`.
  func largeText(tail: String = "") -> String {
    var text = "env: &more\n  merged: echo merged\n  t1: echo not this one\ntasks:\n"
    var index = 0
    while text.utf8.count < TaskFileLoader.largeFileSize {
      text +=
        "  t\(index):\n    deps: [\(index > 0 ? "t\(index - 1)" : "")]\n    run: echo \(index) \(String(repeating: "x", count: 40))\n"
      index += 1
    }
    return text + "  <<: *more\n" + tail
  }

  func write(_ name: String, _ bytes: [UInt8]) throws -> String {
    let path = directory + "/" + name
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// What loading `bytes` gives, through the file (streamed) and through the text (whole).
  func bothWays(_ bytes: [UInt8]) throws -> (
    streamed: Result<TaskGraph, DiagnosticList>, whole: Result<TaskGraph, DiagnosticList>
  ) {
    let path = try write("tasks.yml", bytes)
    #expect(bytes.count >= TaskFileLoader.largeFileSize)
    let loader = TaskFileLoader()
    // Through the streamed parse, not the whole text read when a file is not large.
    let streamed = Result { () throws(DiagnosticList) -> TaskGraph in
      guard let file = try loader.decodeLarge(path: path) else {
        throw DiagnosticList([Diagnostic(.error, "not streamed")])
      }
      return try loader.graph(of: loader.withIncludes(file, path: path))
    }
    return (streamed, Result { () throws(DiagnosticList) in try loader.load(bytes: bytes, path: path) })
  }

  @Test func aLargeFileLoadsAsItsWholeTextDoes() throws {
    let (streamed, whole) = try bothWays(Array(largeText().utf8))
    let read = try streamed.get()
    let expected = try whole.get()
    #expect(read.count == expected.count)
    #expect(read.count > 10_000)
    #expect(read.tasks.map(\.name) == expected.tasks.map(\.name))
    #expect(read.tasks.map(\.location) == expected.tasks.map(\.location))
    #expect(
      read.tasks.indices.map { Array(read.dependencies[$0]) }
        == expected.tasks.indices.map { Array(expected.dependencies[$0]) })
    let commands = { (graph: TaskGraph) in
      graph.tasks.map { task -> [String] in
        if case .shell(let commands) = task.action { return commands.map(\.text) }
        return []
      }
    }
    #expect(commands(read) == commands(expected))
    // A merge adds what is not written, and does not override what was streamed.
    #expect(commands(read).last == ["echo merged"])
    #expect(commands(read)[1] == ["echo 1 " + String(repeating: "x", count: 40)])
  }

  @Test(arguments: [
    ("a duplicate key", Array("  t5: echo again\n".utf8)),
    ("bytes that are not UTF-8", Array("  bad".utf8) + [0xFF] + Array(": echo\n".utf8)),
    ("a tab", Array("  zz:\n\trun: echo\n".utf8)),
    ("an unclosed flow sequence", Array("  zz: [a\n".utf8)),
  ])
  func aLargeFilesErrorIsTheWholeTextsError(what: String, tail: [UInt8]) throws {
    let (streamed, whole) = try bothWays(Array(largeText().utf8) + tail)
    guard case .failure(let got) = streamed, case .failure(let expected) = whole else {
      Issue.record("\(what): loaded")
      return
    }
    #expect(got.diagnostics.map(\.description) == expected.diagnostics.map(\.description), "\(what)")
    #expect(got.diagnostics.first?.location?.line ?? 0 > 10_000, "\(what)")
  }

  @Test func aLargeIncludedFileIsStreamedToo() throws {
    let included = try write("more.yml", Array(largeText().utf8))
    let root = try write(
      "root.yml", Array("includes:\n  more: \(included)\ntasks:\n  all:\n    deps: [more:t3]\n".utf8))
    let graph = try TaskFileLoader().load(path: root)
    #expect(graph.tasks.contains { $0.name == "more:t3" })
    #expect(try TaskFileLoader().decodeLarge(path: root) == nil)
    #expect(graph.count > 10_000)
  }

  /// Parses what a pipe carries, written by another thread a piece at a time.
  func parsePipe(_ text: [UInt8], limit: Int) throws(Diagnostic) -> YAMLNode? {
    var descriptors: [Int32] = [0, 0]
    #expect(pipe(&descriptors) == 0)
    let (reading, writing) = (descriptors[0], descriptors[1])
    defer { close(reading) }
    Thread.detachNewThread {
      var offset = 0
      while offset < text.count {
        let count = text[offset...].prefix(1000).withUnsafeBytes { Glibc.write(writing, $0.baseAddress, $0.count) }
        guard count > 0 else { break }
        offset += count
      }
      close(writing)
    }
    var none = NoSink()
    return try YAMLParser(file: "p.yml").parse(
      reading: reading, size: text.count, limit: limit, streaming: "", to: &none)
  }

  @Test func theParserReadsADescriptorAsItNeedsIt() throws {
    let text = Array(largeText().utf8)
    let whole = try YAMLParser(file: "p.yml").parse(text)
    let read = try parsePipe(text, limit: text.count)
    #expect(read.map(String.init(describing:)) == whole.map(String.init(describing:)))
    #expect(read != nil)
    // Past the limit, the read stops with an error rather than going on.
    #expect(throws: Diagnostic.self) { try parsePipe(text, limit: text.count - 1) }
  }
}
