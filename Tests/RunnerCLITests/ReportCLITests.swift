import Foundation
import Testing

/// The CI formats and pictures end to end: the binary in a scratch directory, as a GitHub
/// job would run it. Times vary, so outputs are checked by parsing, not by golden files
/// (ReportRendererTests has the goldens, from a scripted run).
@Suite struct ReportCLITests {
  static let tasks = """
    tasks:
      ok: echo fine
      broken:
        deps: [ok]
        run: 'echo "100% wrong: a, b" >&2; exit 3'
      after:
        deps: [broken]
        run: echo never

    """

  func scratch(_ yaml: String = tasks) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-report-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try yaml.write(to: directory.appendingPathComponent("tasks.yml"), atomically: true, encoding: .utf8)
    return directory
  }

  func python(_ script: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script] + arguments
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }

  @Test func githubJobGetsGroupsAnnotationsSummaryAndFiles() throws {
    let directory = try scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let summary = directory.appendingPathComponent("summary.md").path
    let output = try BinaryRunner.run(
      ["-j1", "-k", "--junit", "junit.xml", "--trace", "trace.json", "--timeline", "timeline.svg", "**"], in: directory,
      environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary, "GITHUB_WORKSPACE": directory.path])
    #expect(output.status == 1)
    #expect(output.stdout.contains("::group::ok\nfine\n::endgroup::\n"))
    #expect(output.stdout.contains("::group::broken\n100% wrong: a, b\n::endgroup::\n"))
    #expect(
      output.stdout.contains(
        "::error file=tasks.yml,line=3,col=3,title=task 'broken' failed::'echo \"100%25 wrong: a, b\" >&2; exit 3' failed"
      ))
    let markdown = try String(contentsOfFile: summary, encoding: .utf8)
    #expect(markdown.contains("| `broken` | ❌ failed: "))
    #expect(markdown.contains("| `after` | ⏭️ skipped: 'broken' failed | – | – |"))
    let check = """
      import sys, json, xml.etree.ElementTree as E
      d = sys.argv[1]
      suite = E.parse(d + '/junit.xml').getroot().find('testsuite')
      assert (suite.get('tests'), suite.get('failures'), suite.get('skipped')) == ('3', '1', '1'), suite.attrib
      spans = [e for e in json.load(open(d + '/trace.json'))['traceEvents'] if e['ph'] == 'X']
      assert [e['name'] for e in spans] == ['ok', 'broken'] and spans[1]['args']['exit'] == 3, spans
      E.parse(d + '/timeline.svg')
      """
    #expect(try python(check, [directory.path]) == 0)
  }

  @Test func concurrentRunIsGroupedToo() throws {
    let directory = try scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = try BinaryRunner.run(["-j2", "--ci", "github", "**"], in: directory)
    #expect(output.stdout.contains("::group::ok\nfine\n::endgroup::\n"), "\(output.stdout)")
    #expect(output.stdout.contains("::error file=tasks.yml,line=3,col=3,"))
  }

  @Test func taskFileErrorsAreAnnotated() throws {
    let directory = try scratch("tasks:\n  a:\n    deps: [b]\n")
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = try BinaryRunner.run(["--ci", "github", "**"], in: directory)
    #expect(output.status == 2)
    #expect(output.stderr.contains("tasks.yml:3:12: error:"))
    #expect(output.stdout.hasPrefix("::error file=tasks.yml,line=3,col=12,title=task file error::"))
  }

  @Test func unwritableReportIsAUsageError() throws {
    let directory = try scratch("tasks:\n  a: echo hi\n")
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = try BinaryRunner.run(["--junit", "missing/dir/junit.xml", "**"], in: directory)
    #expect(output.status == 2)
    #expect(output.stderr.contains("cannot write 'missing/dir/junit.xml'"))
  }

  @Test func graphPicturesWithoutGraphviz() throws {
    let directory = try scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let missing = try BinaryRunner.run(["--graph", "png"], in: directory, environment: ["PATH": "/nonexistent"])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("install the 'graphviz' package"))
    let html = try BinaryRunner.run(["--graph", "html"], in: directory, environment: ["PATH": "/nonexistent"])
    #expect(html.status == 0)
    #expect(html.stdout.hasPrefix("<!DOCTYPE html>") && html.stdout.contains("<svg"))
  }
}
