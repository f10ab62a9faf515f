import Foundation
import Testing

@testable import RunnerKit
@testable import RunnerModel
@testable import RunnerRendering

@Suite struct GraphPictureTests {
  let selection: GraphSelection

  init() throws { selection = try ReportFixture().selection }

  /// runner's own layout, as `--graph html` uses it without Graphviz: golden and well-formed.
  @Test func htmlWithOwnLayout() throws {
    let html = HTMLGraphRenderer().render(selection, svg: nil)
    try ReportFixture.expectGolden(html, "graph.html")
    let script = """
      import sys, re, xml.etree.ElementTree as E
      from html.parser import HTMLParser
      page = sys.stdin.read()
      class Check(HTMLParser):
          def handle_starttag(self, tag, attrs):
              attrs = dict(attrs)
              assert tag not in ('script', 'link', 'img', 'iframe'), tag
              for key in ('src', 'href'):
                  assert not (attrs.get(key) or '').startswith(('http:', 'https:', '//')), attrs
      Check().feed(page)
      svg = page[page.index('<svg'):page.index('</svg>') + 6]
      root = E.fromstring(svg)
      assert len(root.findall('{http://www.w3.org/2000/svg}g')) == 6
      assert page.count('<tr id="task-') == 6
      print('ok')
      """
    let (status, output) = try ReportFixture.python(script, input: html)
    #expect(status == 0, "\(output)")
  }

  /// An edge that skips a stage goes around the boxes of the stage between, not through them
  /// (`a → c` crossed `b`): every point of every edge, sampled, lies outside every box.
  @Test func edgesThatSkipAStageGoAroundBoxes() throws {
    let yaml = """
      tasks:
        a: x
        b: {deps: [a], run: y}
        b2: {deps: [a], run: y}
        c: {deps: [b, a], run: z}
        d: {deps: [c, a, b2], run: w}
      """
    let graph = try TaskFileLoader().load(bytes: Array(yaml.utf8), path: "t.yml")
    let svg = LayeredGraphRenderer().render(GraphSelection(graph: graph, targets: []))
    let script = """
      import sys, re
      svg = sys.stdin.read()
      boxes = [tuple(float(v) for v in m) for m in re.findall(r'<rect x="([\\d.]+)" y="([\\d.]+)" width="([\\d.]+)" height="([\\d.]+)"', svg)]
      paths = [d for d in re.findall(r'<path d="(M [^"]+)"', svg) if 'z' not in d]  # not the arrow head
      assert len(boxes) == 5 and len(paths) == 7, (len(boxes), len(paths))
      def points(d):
          tokens = re.findall(r'[MCL]|-?[\\d.]+', d)
          at, i = None, 0
          while i < len(tokens):
              op = tokens[i]; i += 1
              if op == 'M':
                  at = (float(tokens[i]), float(tokens[i + 1])); i += 2
              elif op == 'L':
                  end = (float(tokens[i]), float(tokens[i + 1])); i += 2
                  for k in range(21):
                      t = k / 20; yield (at[0] + (end[0] - at[0]) * t, at[1] + (end[1] - at[1]) * t)
                  at = end
              else:
                  c1, c2, end = [(float(tokens[i + 2 * j]), float(tokens[i + 2 * j + 1])) for j in range(3)]; i += 6
                  for k in range(41):
                      t = k / 40; u = 1 - t
                      yield tuple(u**3 * a + 3 * u * u * t * b + 3 * u * t * t * c + t**3 * e for a, b, c, e in zip(at, c1, c2, end))
                  at = end
      for d in paths:
          for x, y in points(d):
              for bx, by, bw, bh in boxes:
                  assert not (bx + 1 < x < bx + bw - 1 and by + 1 < y < by + bh - 1), (d, x, y)
      print('ok')
      """
    let (status, output) = try ReportFixture.python(script, input: svg)
    #expect(status == 0, "\(output)")
  }

  @Test func graphvizPrologIsStripped() {
    let svg = "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg width=\"1\"></svg>\n"
    #expect(HTMLGraphRenderer.stripProlog(svg) == "<svg width=\"1\"></svg>\n")
  }

  @Test(.enabled(if: GraphvizRenderer.isAvailable)) func graphvizDrawsSVG() async throws {
    let bytes = try await GraphvizRenderer().render(selection, format: .svg)
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(text.contains("<svg") && text.contains("build"))
  }
}
