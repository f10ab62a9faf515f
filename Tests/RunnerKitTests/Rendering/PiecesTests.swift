import Foundation
import Testing

@testable import RunnerModel
@testable import RunnerRendering

/// Renderers hand their text on in pieces of about 1 MiB; the text must not depend on where
/// the pieces fall.
@Suite struct PiecesTests {
  /// Enough tasks that every renderer's output spans several pieces.
  static let graph: TaskGraph = {
    let text =
      "tasks:\n"
      + (0..<12_000).map { "  task-\($0):\n    desc: the task numbered \($0), described at some length\n    run: true" }
      .joined(separator: "\n")
    return try! TaskFileLoader().load(bytes: Array(text.utf8), path: "tasks.yml")
  }()

  @Test func aLongJSONListIsOneDocument() throws {
    var pieces: [String] = []
    ListRenderer().write(Self.graph, json: true) { pieces.append($0) }
    #expect(pieces.count > 2)
    let list = try JSONSerialization.jsonObject(with: Data(pieces.joined().utf8)) as? [[String: Any]]
    #expect(list?.count == 12_000)
    #expect(list?.last?["name"] as? String == "task-9999")
  }

  @Test func aLongJSONGraphIsOneDocument() throws {
    let selection = try GraphSelection(graph: Self.graph, targetNames: [], wholeFile: true)
    var pieces: [String] = []
    JSONGraphRenderer().write(selection) { pieces.append($0) }
    #expect(pieces.count > 2)
    let graph = try JSONSerialization.jsonObject(with: Data(pieces.joined().utf8)) as? [String: Any]
    #expect((graph?["tasks"] as? [Any])?.count == 12_000)
  }
}
