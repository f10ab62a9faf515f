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
