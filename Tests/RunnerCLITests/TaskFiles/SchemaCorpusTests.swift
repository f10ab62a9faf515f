import Foundation
import Testing

/// Issue 19, point 10: the JSON Schema and the loader agree on a corpus of valid and invalid
/// files (`Fixtures/schema-corpus`): `valid/` both accept, `invalid/` both reject, and
/// `runner-only/` only runner rejects — the checks docs/editor-schema.md lists as beyond a
/// schema. The schema side is check-jsonschema (PyPI), which `.ci/run` installs and names in
/// `CHECK_JSONSCHEMA`; without it the test is reported as skipped.
@Suite struct SchemaCorpusTests {
  static let corpus = BinaryRunner.packageRoot.appendingPathComponent("Tests/RunnerCLITests/Fixtures/schema-corpus")
  static let schema = BinaryRunner.packageRoot.appendingPathComponent("schema/tasks.schema.json").path

  static var checker: String? {
    let candidates = [ProcessInfo.processInfo.environment["CHECK_JSONSCHEMA"], "/usr/local/bin/check-jsonschema"]
    return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  static func files(_ folder: String) -> [URL] {
    let directory = corpus.appendingPathComponent(folder)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(".yml") }.sorted().map { directory.appendingPathComponent($0) }
  }

  /// The exit status of `program arguments`, its output discarded.
  static func status(_ program: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }

  @Test func theCorpusIsThere() {
    #expect(Self.files("valid").count >= 20)
    #expect(Self.files("invalid").count >= 15)
    #expect(Self.files("runner-only").count >= 4)
  }

  @Test(.enabled(if: checker != nil)) func schemaAndLoaderAgree() throws {
    let checker = try #require(Self.checker)
    let runner = BinaryRunner.executable.path
    for file in Self.files("valid") + Self.files("invalid") + Self.files("runner-only") {
      let folder = file.deletingLastPathComponent().lastPathComponent
      let loads = try Self.status(runner, ["-f", file.path, "--list"])
      #expect(loads == (folder == "valid" ? 0 : 2), "runner on \(folder)/\(file.lastPathComponent): exit \(loads)")
    }
    // One call for every file the schema must accept; one per file it must reject.
    let accepted = (Self.files("valid") + Self.files("runner-only")).map(\.path)
    #expect(try Self.status(checker, ["--schemafile", Self.schema] + accepted) == 0, "a valid file fails the schema")
    for file in Self.files("invalid") {
      let checked = try Self.status(checker, ["--schemafile", Self.schema, file.path])
      #expect(checked != 0, "the schema accepts invalid/\(file.lastPathComponent)")
    }
  }
}
