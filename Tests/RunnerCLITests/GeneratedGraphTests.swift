import Foundation
import Testing

/// Issue 21: the JSON graph of a generated wide graph, checked for structure (it was
/// quadratic in the edges of a wide task). Issue 39: written in pieces (`Answer`).
@Suite struct GeneratedGraphTests {
  @Test func theJSONGraphOfAWideGraphHasEveryTaskAndEdgeInPlace() throws {
    let count = 3000
    var text = "tasks:\n"
    for task in 0..<count { text += "  t\(task): 'true'\n" }
    text += "  all:\n    deps:\n" + (0..<count).map { "      - t\($0)\n" }.joined()
    let project = try TaskFileProject(text)
    defer { project.remove() }
    let output = try project.run("--graph", "json", "all")
    #expect(output.status == 0, "\(output.stderr)")
    // Past 1 MiB the binary writes the text in pieces as it is made: they must join up.
    #expect(output.stdout.utf8.count > 1 << 20)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    let tasks = try #require(json["tasks"] as? [[String: Any]])
    let edges = try #require(json["edges"] as? [[String: Any]])
    let stages = try #require(json["stages"] as? [[String]])
    #expect(tasks.count == count + 1)
    #expect(edges.count == count)
    #expect(stages.count == 2 && stages[0].count == count && stages[1] == ["all"])
    // Each edge's location is the line of its `- tN` under `all`'s deps.
    for edge in edges {
      let from = try #require(edge["from"] as? String)
      let location = try #require(edge["location"] as? [String: Any])
      let number = try #require(Int(from.dropFirst()))
      #expect(edge["to"] as? String == "all")
      #expect(location["line"] as? Int == count + 4 + number, "\(edge)")
    }
  }
}
