import RunnerBasics
import RunnerModel

extension ImageStep.Kind {
  /// The step as a JSON object with every parameter, in a fixed order: what an image task's
  /// Command names (`ActionKey`), so a change to any parameter changes the key.
  var canonical: JSONValue {
    func object(_ name: String, _ members: [(String, JSONValue)]) -> JSONValue {
      .object([("step", .string(name))] + members)
    }
    func optional(_ value: Int?) -> JSONValue { value.map { .int($0) } ?? .null }
    switch self {
    case .load(let source, let maxPixels):
      let from: (String, JSONValue)
      switch source {
      case .path(let path): from = ("path", .string(path))
      case .url(let url): from = ("url", .string(url))
      case .dependency(let name): from = ("from", .string(name))
      }
      return object("load", [from, ("max_pixels", .int(maxPixels))])
    case .resize(let width, let height, let scale, let filter):
      return object(
        "resize",
        [
          ("width", optional(width)), ("height", optional(height)), ("scale", scale.map { .double($0) } ?? .null),
          ("filter", .string(filter.rawValue)),
        ])
    case .crop(let x, let y, let width, let height):
      return object("crop", [("x", .int(x)), ("y", .int(y)), ("width", .int(width)), ("height", .int(height))])
    case .blur(let sigma): return object("blur", [("sigma", .double(sigma))])
    case .sharpen(let sigma, let amount):
      return object("sharpen", [("sigma", .double(sigma)), ("amount", .double(amount))])
    case .grayscale: return object("grayscale", [])
    case .sepia(let amount): return object("sepia", [("amount", .double(amount))])
    case .tiltShift(let focus, let band, let sigma):
      return object("tilt_shift", [("focus", .double(focus)), ("band", .double(band)), ("sigma", .double(sigma))])
    case .vignette(let strength): return object("vignette", [("strength", .double(strength))])
    case .brightness(let value): return object("brightness", [("value", .double(value))])
    case .contrast(let value): return object("contrast", [("value", .double(value))])
    case .flip(let horizontal): return object("flip", [("horizontal", .bool(horizontal))])
    case .rotate(let degrees): return object("rotate", [("degrees", .int(degrees))])
    case .save(let path, let quality): return object("save", [("path", .string(path)), ("quality", .int(quality))])
    }
  }
}
