import Foundation
import Testing

@testable import RunnerImport

/// Each directory of `Corpus/` holds one file to import (a Taskfile.yml, justfile or
/// Makefile written like real ones), the tasks.yml it must become (`expected.yml`) and the
/// report (`expected.report`, empty when the import is exact). `UPDATE_GOLDEN=1` rewrites the
/// expectations (`UPDATE_GOLDEN=make-` those of the cases named so).
@Suite struct CorpusTests {
  static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus")

  static let inputNames = ["Taskfile.yml", "justfile", "Makefile"]

  static var cases: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).sorted()
  }

  static func input(of name: String) -> URL? {
    inputNames.map { corpus.appendingPathComponent(name).appendingPathComponent($0) }
      .first { FileManager.default.fileExists(atPath: $0.path) }
  }

  @Test func theCorpusIsThere() {
    #expect(Self.cases.count >= 9, "\(Self.cases)")
  }

  @Test(arguments: cases)
  func importsAsExpected(name: String) throws {
    let input = try #require(Self.input(of: name), "no input in \(name)")
    let text = try String(contentsOf: input, encoding: .utf8)
    let shown = input.lastPathComponent
    let format = try #require(ImportFormat.detect(path: shown, text: text))
    let (file, report) = try Importer.convert(
      path: shown, text: text, format: format, directory: input.deletingLastPathComponent().path)
    let yaml = TasksFileWriter().write(file)
    let directory = Self.corpus.appendingPathComponent(name)
    let expectedYAML = directory.appendingPathComponent("expected.yml")
    let expectedReport = directory.appendingPathComponent("expected.report")
    // `UPDATE_GOLDEN=1` rewrites every case; `UPDATE_GOLDEN=just-` only the cases named so.
    if let update = ProcessInfo.processInfo.environment["UPDATE_GOLDEN"], update == "1" || name.hasPrefix(update) {
      try yaml.write(to: expectedYAML, atomically: true, encoding: .utf8)
      try report.render().write(to: expectedReport, atomically: true, encoding: .utf8)
    }
    #expect(yaml == (try String(contentsOf: expectedYAML, encoding: .utf8)))
    #expect(report.render() == (try String(contentsOf: expectedReport, encoding: .utf8)))
  }
}
