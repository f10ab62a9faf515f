import Foundation
import Testing

@testable import RunnerModel

/// schema/tasks.schema.json agrees with the loader: the same keys everywhere, and every
/// example validates (python3's jsonschema and PyYAML).
@Suite struct TaskFileSchemaTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  let schema: [String: Any]

  init() throws {
    let data = try Data(contentsOf: Self.root.appendingPathComponent("schema/tasks.schema.json"))
    schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  func keys(_ object: Any?) -> Set<String> {
    Set(((object as? [String: Any])?["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
  }

  var definitions: [String: Any] { schema["$defs"] as? [String: Any] ?? [:] }

  @Test func fileKeysMatch() {
    #expect(keys(schema) == Set(TaskFileDecoder.fileKeys))
  }

  @Test func taskKeysMatch() {
    let task = (definitions["task"] as? [String: Any])?["oneOf"] as? [Any]
    let mapping = task?.first { ($0 as? [String: Any])?["type"] as? String == "object" }
    #expect(keys(mapping) == Set(TaskFileDecoder.taskKeys))
  }

  @Test func gateKeysMatch() {
    #expect(keys(definitions["gate"]) == Set(TaskFileDecoder.gateKeys))
  }

  @Test func imageStepsMatch() {
    let names = Set(definitions.keys.filter { $0.hasPrefix("step_") }.map { String($0.dropFirst(5)) })
    #expect(names == Set(ImageStepDecoder.steps.keys))
    for (name, step) in ImageStepDecoder.steps {
      let wrapper = (definitions["step_" + name] as? [String: Any])?["properties"] as? [String: Any]
      let body = wrapper?[name] as? [String: Any]
      let object = ((body?["oneOf"] as? [Any]) ?? [body as Any]).first {
        ($0 as? [String: Any])?["type"] as? String == "object"
      }
      #expect(keys(object) == Set(step.keys), "step '\(name)'")
    }
  }

  @Test func examplesValidateAndMistakesDoNot() throws {
    let script = """
      import sys, glob, json, yaml, jsonschema
      root = sys.argv[1]
      schema = json.load(open(root + '/schema/tasks.schema.json'))
      jsonschema.Draft202012Validator.check_schema(schema)
      check = jsonschema.Draft202012Validator(schema)
      files = sorted(glob.glob(root + '/examples/**/*.yml', recursive=True)) + [root + '/tasks.yml']
      assert len(files) >= 5, files
      bad = {f: [e.message for e in check.iter_errors(yaml.safe_load(open(f)))] for f in files}
      bad = {f: m for f, m in bad.items() if m}
      assert not bad, bad
      for text in ['tasks: {a: {dpes: [b]}}', 'tasks: {a: {run: x, image: [grayscale]}}',
                   'tasks: {a: {image: [{blurr: 1}]}}', 'task: {}', 'tasks: {a: {timeout: soon}}']:
          assert list(check.iter_errors(yaml.safe_load(text))), text
      """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, Self.root.path]
    let pipe = Pipe()
    process.standardError = pipe
    try process.run()
    let errors = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(errors)")
  }
}
