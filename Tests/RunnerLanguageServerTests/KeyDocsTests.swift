import Foundation
import Testing

@testable import RunnerLanguageServer

/// Completion and hover show each key with the text schema/tasks.schema.json gives it.
struct KeyDocsTests {
  static func loadSchema() -> [String: Any] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("schema/tasks.schema.json")
    let data = (try? Data(contentsOf: url)) ?? Data()
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
  }

  static func documentation(_ property: [String: Any], in schema: [String: Any]) -> String {
    if let text = property["description"] as? String { return text }
    guard let reference = property["$ref"] as? String,
      let definitions = schema["$defs"] as? [String: Any],
      let definition = definitions[String(reference.split(separator: "/").last ?? "")] as? [String: Any]
    else { return "" }
    return definition["description"] as? String ?? ""
  }

  @Test func fileKeysAreTheSchemasWithItsText() throws {
    let schema = Self.loadSchema()
    let properties = try #require(schema["properties"] as? [String: [String: Any]])
    #expect(Set(KeyDocs.file.map(\.key)) == Set(properties.keys))
    for (key, text) in KeyDocs.file {
      #expect(text == Self.documentation(properties[key] ?? [:], in: schema), "\(key)")
    }
  }

  @Test func taskKeysAreTheSchemasWithItsText() throws {
    let schema = Self.loadSchema()
    let definitions = try #require(schema["$defs"] as? [String: Any])
    let task = try #require(definitions["task"] as? [String: Any])
    let shapes = try #require(task["oneOf"] as? [[String: Any]])
    let properties = try #require(shapes.compactMap { $0["properties"] as? [String: [String: Any]] }.first)
    #expect(Set(KeyDocs.task.map(\.key)) == Set(properties.keys))
    for (key, text) in KeyDocs.task {
      #expect(text == Self.documentation(properties[key] ?? [:], in: schema), "\(key)")
    }
  }
}
