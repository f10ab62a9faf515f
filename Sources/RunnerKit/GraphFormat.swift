import RunnerBasics
import RunnerModel
import RunnerRendering

/// `--graph FORMAT`: the selected graph as text or as a picture.
public enum GraphFormat: String, Sendable, CaseIterable {
  case tree, dot, mermaid, json, svg, png, html

  /// Formats drawn by Graphviz or as a page rather than rendered as text.
  var isPicture: Bool { self == .svg || self == .png || self == .html }

  /// The text formats, in pieces (the pictures are drawn by `draw`).
  func write(_ selection: GraphSelection, to emit: (String) -> Void) {
    switch self {
    case .tree: TreeRenderer().write(selection, to: emit)
    case .dot: DOTRenderer().write(selection, to: emit)
    case .mermaid: MermaidRenderer().write(selection, to: emit)
    case .json: JSONGraphRenderer(secrets: Runner.secrets(of: selection.graph)).write(selection, to: emit)
    case .svg, .png, .html: break
    }
  }

  /// The most tasks `--graph html` lays out with Graphviz.
  static let graphvizLimit = 2000

  /// Draws the graph as SVG or PNG (through Graphviz) or as an HTML page, into `answer`'s
  /// output; when Graphviz is missing or fails, an error naming the package and exit code 2.
  func draw(_ selection: GraphSelection, into answer: inout Answer) async {
    do {
      switch self {
      case .html:
        // Graphviz's layout grows much faster than the graph (10 000 tasks: many minutes);
        // above a few thousand tasks the page draws its own layered layout.
        let small = selection.members.count <= Self.graphvizLimit
        let svg =
          small && GraphvizRenderer.isAvailable ? try await GraphvizRenderer().render(selection, format: .svg) : nil
        HTMLGraphRenderer().write(selection, svg: svg.map { String(decoding: $0, as: UTF8.self) }) { answer.say($0) }
      default:
        answer.output += try await GraphvizRenderer().render(selection, format: self == .png ? .png : .svg)
      }
    } catch {
      answer.output = []
      answer.report([Diagnostic(.error, "\(error)")])
      answer.exitCode = ExitStatus.usage
    }
  }
}
