import Foundation
import RunnerEvents
import Testing

@testable import RunnerBasics
@testable import RunnerExecution
@testable import RunnerKit
@testable import RunnerModel
@testable import RunnerReporting

@Suite struct ReportRendererTests {
  let fixture: ReportFixture

  init() throws { fixture = try ReportFixture() }

  var graph: TaskGraph { fixture.selection.graph }

  @Test func recordAssignsLanesGreedily() {
    let record = fixture.record
    #expect(record.laneCount == 2)
    let lanes = record.attempts.map { "\(graph[$0.task].name)#\($0.number)@\($0.lane)" }
    #expect(lanes == ["version#1@0", "lint#1@1", "build#1@0", "docs#1@1", "test#1@0", "test#2@0"])
    #expect(record.outcomes[graph.index(of: "test")!]?.attempts == 2)
    #expect(record.outcomes[graph.index(of: "package")!]?.start == nil)
  }

  @Test func criticalPathFollowsWhatHeldEachTaskUp() {
    #expect(fixture.record.criticalPath(graph).map { graph[$0].name } == ["version", "build", "test"])
  }

  /// The critical path of a run of `yaml` whose tasks changed state at these times (ms).
  func criticalPath(_ yaml: String, _ steps: [(Int, Int, TaskState)], duration: Int? = nil) throws -> [String] {
    let graph = try TaskFileLoader().load(bytes: Array(yaml.utf8), path: "t.yml")
    var record = RunRecord()
    for (ms, task, state) in steps {
      record.apply(RunEvent(time: .milliseconds(ms), task: task, kind: .state(state, attempt: 1, reason: nil)))
    }
    if let duration { record.duration = .milliseconds(duration) }
    return record.criticalPath(graph).map { graph[$0].name }
  }

  @Test func criticalPathFollowsTheSlotWhenATaskWaitedForOne() throws {
    let path = try criticalPath(
      "tasks:\n  a: x\n  b: y\n  c: {deps: [a], run: z}\n",
      [
        (0, 0, .executing), (1000, 0, .succeeded), (1000, 1, .executing),
        (3000, 1, .succeeded), (3001, 2, .executing), (4000, 2, .succeeded),
      ])
    #expect(path == ["a", "b", "c"])
  }

  /// A chain that starts at time zero keeps its first links: `a → b → c` was `c` alone (the
  /// walk stopped at a task that started within 1 % of the start).
  @Test func criticalPathFollowsRealDependenciesFromTheStart() throws {
    let path = try criticalPath(
      "tasks:\n  a: x\n  b: {deps: [a], run: y}\n  c: {deps: [b], run: z}\n",
      [
        (0, 0, .executing), (2, 0, .succeeded), (3, 1, .executing),
        (5, 1, .succeeded), (6, 2, .executing), (1000, 2, .succeeded),
      ], duration: 1000)
    #expect(path == ["a", "b", "c"])
  }

  @Test func junit() throws {
    let xml = JUnitRenderer().render(fixture.selection, record: fixture.record, summary: fixture.summary)
    try ReportFixture.expectGolden(xml, "junit.xml")
    let script = """
      import sys, xml.etree.ElementTree as E
      root = E.fromstring(sys.stdin.read())
      suite = root.find('testsuite')
      cases = suite.findall('testcase')
      assert suite.get('tests') == str(len(cases)) == '6', suite.attrib
      assert suite.get('failures') == '1' and suite.get('skipped') == '1'
      failure = [c for c in cases if c.find('failure') is not None][0]
      assert failure.get('name') == 'test' and failure.get('classname') == 'ci/tasks.yml'
      assert 'expected <1> & got <2>' in failure.find('failure').text
      print('ok')
      """
    let (status, output) = try ReportFixture.python(script, input: xml)
    #expect(status == 0, "\(output)")
  }

  @Test func trace() throws {
    let json = TraceRenderer().render(fixture.selection, record: fixture.record, summary: fixture.summary)
    try ReportFixture.expectGolden(json, "trace.json")
    let script = """
      import sys, json
      doc = json.load(sys.stdin)
      spans = [e for e in doc['traceEvents'] if e['ph'] == 'X']
      assert len(spans) == 6, spans
      assert all(e['pid'] == 1 and e['tid'] in (2, 3) and e['dur'] >= 0 for e in spans)
      names = {e['tid']: e['args']['name'] for e in doc['traceEvents'] if e['name'] == 'thread_name'}
      assert names == {2: 'lane 1', 3: 'lane 2'}, names
      first, last = [e for e in spans if e['name'] == 'test']
      assert first['args']['exit'] == 2, first
      assert last['args'] == {'state': 'failed', 'attempt': 2, 'reason': "'make test' failed with exit code 2 (1.20s)", 'exit': 2}, last
      print('ok')
      """
    let (status, output) = try ReportFixture.python(script, input: json)
    #expect(status == 0, "\(output)")
  }

  @Test func timelineIsWellFormedSVG() throws {
    let svg = TimelineRenderer().render(fixture.selection, record: fixture.record, summary: fixture.summary)
    try ReportFixture.expectGolden(svg, "timeline.svg")
    let script = """
      import sys, xml.etree.ElementTree as E
      root = E.fromstring(sys.stdin.read())
      ns = '{http://www.w3.org/2000/svg}'
      assert root.tag == ns + 'svg'
      bars = root.findall(ns + 'g')
      assert len(bars) == 6, len(bars)
      print('ok')
      """
    let (status, output) = try ReportFixture.python(script, input: svg)
    #expect(status == 0, "\(output)")
    #expect(svg.contains("critical path (2.29s): version → build → test"))
    #expect(svg.contains("not run: package (skipped)"))
  }

  @Test func stepSummary() throws {
    let markdown = StepSummaryRenderer().render(fixture.selection, record: fixture.record, summary: fixture.summary)
    try ReportFixture.expectGolden(markdown, "step-summary.md")
  }

  @Test(arguments: [(1.25, 3, "1.250"), (0.0004, 3, "0.000"), (2, 0, "2"), (-1.5, 1, "-1.5"), (12.05, 1, "12.1")])
  func fixedDecimals(value: Double, places: Int, expected: String) {
    #expect(MarkupText.fixed(value, places: places) == expected)
  }

  @Test func xmlEscapingDropsControlCharacters() {
    #expect(MarkupText.xml("a<b & \"c\"\u{1B}[0m") == "a&lt;b &amp; &quot;c&quot;\u{FFFD}[0m")
  }
}
