import RunnerBasics
import RunnerModel
import RunnerRendering

/// `--graph FORMAT`: the selected graph as text or as a picture.
public enum GraphFormat: String, Sendable, CaseIterable {
  case tree, dot, mermaid, json, svg, png, html

  /// Formats drawn by Graphviz or as a page rather than rendered as text.
  var isPicture: Bool { self == .svg || self == .png || self == .html }

  /// The text formats (the pictures are drawn by `draw`).
  func render(_ selection: GraphSelection) -> String {
    switch self {
    case .tree: return TreeRenderer().render(selection)
    case .dot: return DOTRenderer().render(selection)
    case .mermaid: return MermaidRenderer().render(selection)
    case .json: return JSONGraphRenderer().render(selection)
    case .svg, .png, .html: return ""
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
        Terminal.write(
          HTMLGraphRenderer().render(selection, svg: svg.map { String(decoding: $0, as: UTF8.self) }), to: 1)
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
