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

  /// Writes the graph as SVG or PNG (through Graphviz) or as an HTML page to stdout.
  ///
  /// - Returns: 0, or 2 (with a message naming the package) when Graphviz is missing or fails.
  func draw(_ selection: GraphSelection) async -> Int32 {
    do {
      switch self {
      case .html:
        // Graphviz's layout grows much faster than the graph (10 000 tasks: many minutes);
        // above a few thousand tasks the page draws its own layered layout.
        let small = selection.members.count <= Self.graphvizLimit
        let svg =
          small && GraphvizRenderer.isAvailable ? try await GraphvizRenderer().render(selection, format: .svg) : nil
        HTMLGraphRenderer().write(selection, svg: svg.map { String(decoding: $0, as: UTF8.self) }) {
          Terminal.write($0, to: 1)
        }
      default:
        let bytes = try await GraphvizRenderer().render(selection, format: self == .png ? .png : .svg)
        bytes.withUnsafeBufferPointer { Terminal.write($0, to: 1) }
      }
      return ExitStatus.success
    } catch {
      DiagnosticPrinter().print([Diagnostic(.error, "\(error)")])
      return ExitStatus.usage
    }
  }
}
