/// One built-in image step of an image task, as written in the task file.
package struct ImageStep: Sendable, Hashable {
  package enum Source: Sendable, Hashable {
    case path(String)
    case url(String)
    /// The image provided by this dependency (`load: { from: NAME }`).
    case dependency(String)
  }

  package enum Filter: String, Sendable, Hashable {
    case lanczos3
    case bilinear
  }

  package enum Kind: Sendable, Hashable {
    case load(Source, maxPixels: Int)
    case resize(width: Int?, height: Int?, scale: Double?, filter: Filter)
    case crop(x: Int, y: Int, width: Int, height: Int)
    case blur(sigma: Double)
    case sharpen(sigma: Double, amount: Double)
    case grayscale
    case sepia(amount: Double)
    case tiltShift(focus: Double, band: Double, sigma: Double)
    case vignette(strength: Double)
    case brightness(Double)
    case contrast(Double)
    case flip(horizontal: Bool)
    case rotate(degrees: Int)
    case save(path: String, quality: Int)
  }

  package static let defaultMaxPixels = 100_000_000

  package var kind: Kind
  package var location: SourceLocation

  /// Each step's name → its parameters and the one a bare scalar sets (for editors).
  package static var parameters: [String: (keys: [String], main: String?)] { ImageStepDecoder.steps }

  /// The step's name as written in the task file.
  package var name: String {
    switch kind {
    case .load: return "load"
    case .resize: return "resize"
    case .crop: return "crop"
    case .blur: return "blur"
    case .sharpen: return "sharpen"
    case .grayscale: return "grayscale"
    case .sepia: return "sepia"
    case .tiltShift: return "tilt_shift"
    case .vignette: return "vignette"
    case .brightness: return "brightness"
    case .contrast: return "contrast"
    case .flip: return "flip"
    case .rotate: return "rotate"
    case .save: return "save"
    }
  }

  /// A one-line summary for plans and graphs: `blur sigma=5`.
  package var summary: String {
    switch kind {
    case .load(.path(let path), _), .load(.url(let path), _): return "load \(path)"
    case .load(.dependency(let name), _): return "load from \(name)"
    case .resize(let width, let height, let scale, let filter):
      let size = [width.map { "width=\($0)" }, height.map { "height=\($0)" }, scale.map { "scale=\(format($0))" }]
      return (["resize"] + size.compactMap { $0 } + (filter == .lanczos3 ? [] : ["filter=\(filter.rawValue)"]))
        .joined(separator: " ")
    case .crop(let x, let y, let width, let height): return "crop x=\(x) y=\(y) width=\(width) height=\(height)"
    case .blur(let sigma): return "blur sigma=\(format(sigma))"
    case .sharpen(let sigma, let amount): return "sharpen sigma=\(format(sigma)) amount=\(format(amount))"
    case .grayscale: return "grayscale"
    case .sepia(let amount): return "sepia amount=\(format(amount))"
    case .tiltShift(let focus, let band, let sigma):
      return "tilt_shift focus=\(format(focus)) band=\(format(band)) sigma=\(format(sigma))"
    case .vignette(let strength): return "vignette strength=\(format(strength))"
    case .brightness(let value): return "brightness \(format(value))"
    case .contrast(let value): return "contrast \(format(value))"
    case .flip(let horizontal): return "flip \(horizontal ? "horizontal" : "vertical")"
    case .rotate(let degrees): return "rotate \(degrees)"
    case .save(let path, let quality):
      return path.hasSuffix(".png") ? "save \(path)" : "save \(path) quality=\(quality)"
    }
  }

  private func format(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
  }
}
