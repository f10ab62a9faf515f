extension ImageStepDecoder {
  static let maximumDimension = 1_000_000

  /// Builds the typed step from its parameters; records an error and returns nil when one is wrong.
  mutating func decodeKind(_ name: String, _ p: inout Parameters) -> ImageStep.Kind? {
    let dimension = 1...Self.maximumDimension
    switch name {
    case "load":
      let maxPixels = integer(p, "max_pixels", 1...Int(Int32.max) * 8) ?? ImageStep.defaultMaxPixels
      let sources = [text(p, "path"), text(p, "url"), text(p, "from")]
      guard sources.compactMap({ $0 }).count == 1 else {
        reader.fail(.invalidValue(what: p.what, reason: "needs exactly one of 'path', 'url' or 'from'"), at: p.at)
        return nil
      }
      if let from = sources[2] { return .load(.dependency(from), maxPixels: maxPixels) }
      let location = sources[0] ?? sources[1] ?? ""
      let isURL = location.hasPrefix("http://") || location.hasPrefix("https://")
      if sources[1] != nil, !isURL {
        reader.fail(.invalidValue(what: "'url' of \(p.what)", reason: "must start with http:// or https://"), at: p.at)
      }
      return .load(isURL ? .url(location) : .path(location), maxPixels: maxPixels)
    case "resize":
      let width = integer(p, "width", dimension)
      let height = integer(p, "height", dimension)
      let scale = p.values["scale"] == nil ? nil : number(p, "scale", 1, 0.0001...100)
      let filterName = text(p, "filter") ?? "lanczos3"
      guard let filter = ImageStep.Filter(rawValue: filterName) else {
        reader.fail(
          .invalidValue(what: "'filter' of \(p.what)", reason: "must be lanczos3 or bilinear, found '\(filterName)'"),
          at: p.at)
        return nil
      }
      guard (width != nil || height != nil) != (scale != nil) else {
        reader.fail(.invalidValue(what: p.what, reason: "needs 'width' and/or 'height', or 'scale' alone"), at: p.at)
        return nil
      }
      return .resize(width: width, height: height, scale: scale, filter: filter)
    case "crop":
      guard let x = require(integer(p, "x", 0...Self.maximumDimension), p, "needs 'x'"),
        let y = require(integer(p, "y", 0...Self.maximumDimension), p, "needs 'y'"),
        let width = require(integer(p, "width", dimension), p, "needs 'width'"),
        let height = require(integer(p, "height", dimension), p, "needs 'height'")
      else { return nil }
      return .crop(x: x, y: y, width: width, height: height)
    case "blur":
      guard let sigma = require(p.values["sigma"].map { _ in number(p, "sigma", 1, 0.01...500) }, p, "needs 'sigma'")
      else { return nil }
      return .blur(sigma: sigma)
    case "sharpen":
      return .sharpen(sigma: number(p, "sigma", 1, 0.01...100), amount: number(p, "amount", 1, 0...20))
    case "grayscale":
      return .grayscale
    case "sepia":
      return .sepia(amount: number(p, "amount", 1, 0...1))
    case "tilt_shift":
      return .tiltShift(
        focus: number(p, "focus", 0.5, 0...1), band: number(p, "band", 0.2, 0...1),
        sigma: number(p, "sigma", 6, 0.01...200))
    case "vignette":
      return .vignette(strength: number(p, "strength", 0.5, 0...1))
    case "brightness":
      return .brightness(number(p, "amount", 0, -1...1))
    case "contrast":
      return .contrast(number(p, "amount", 0, -1...1))
    case "flip":
      let direction = text(p, "direction") ?? "horizontal"
      guard direction == "horizontal" || direction == "vertical" else {
        reader.fail(
          .invalidValue(what: p.what, reason: "must be horizontal or vertical, found '\(direction)'"), at: p.at)
        return nil
      }
      return .flip(horizontal: direction == "horizontal")
    case "rotate":
      guard let degrees = require(integer(p, "degrees", -270...270), p, "needs 'degrees'") else { return nil }
      let normalized = ((degrees % 360) + 360) % 360
      guard [90, 180, 270].contains(normalized) else {
        reader.fail(.invalidValue(what: p.what, reason: "turns by 90, 180 or 270 degrees, found \(degrees)"), at: p.at)
        return nil
      }
      return .rotate(degrees: normalized)
    case "save":
      guard let path = require(text(p, "path"), p, "needs 'path'") else { return nil }
      let lower = path.lowercased()
      guard lower.hasSuffix(".png") || lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") else {
        reader.fail(.invalidValue(what: p.what, reason: "saves .png, .jpg or .jpeg files, found '\(path)'"), at: p.at)
        return nil
      }
      return .save(path: path, quality: integer(p, "quality", 1...100) ?? 85)
    default:
      return nil
    }
  }
}
