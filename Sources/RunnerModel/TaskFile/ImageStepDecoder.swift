/// Reads the `image:` list of a task: each item a step name, or a one-key mapping
/// `step: parameter` / `step: { parameters }`.
struct ImageStepDecoder {
  /// Step name → (its parameters, the one a bare scalar sets).
  static let steps: [String: (keys: [String], main: String?)] = [
    "load": (["path", "url", "from", "max_pixels"], "path"),
    "resize": (["width", "height", "scale", "filter"], "scale"),
    "crop": (["x", "y", "width", "height"], nil),
    "blur": (["sigma"], "sigma"),
    "sharpen": (["sigma", "amount"], "sigma"),
    "grayscale": ([], nil),
    "sepia": (["amount"], "amount"),
    "tilt_shift": (["focus", "band", "sigma"], nil),
    "vignette": (["strength"], "strength"),
    "brightness": (["amount"], "amount"),
    "contrast": (["amount"], "amount"),
    "flip": (["direction"], "direction"),
    "rotate": (["degrees"], "degrees"),
    "save": (["path", "quality"], "path"),
  ]

  var reader: SchemaReader

  mutating func steps(_ node: YAMLNode, task: String) -> [ImageStep] {
    guard case .sequence(let items) = node.kind, !items.isEmpty else {
      reader.wrongType("'image' of task '\(task)'", expected: "a non-empty list of image steps", node)
      return []
    }
    return items.compactMap { step($0, task: task) }
  }

  mutating func step(_ node: YAMLNode, task: String) -> ImageStep? {
    let name: String
    let value: YAMLNode?
    let place = "'image' of task '\(task)'"
    switch node.kind {
    case .scalar(let text, _):
      (name, value) = (text, nil)
    case .mapping(let entries) where entries.count == 1:
      (name, value) = (entries[0].name, entries[0].value.isNull ? nil : entries[0].value)
    default:
      reader.wrongType("a step in \(place)", expected: "a step name or a mapping of one step", node)
      return nil
    }
    guard let spec = Self.steps[name] else {
      reader.fail(
        .unknownKey(name, in: place, suggestion: Suggestion.closest(to: name, in: Self.steps.keys.sorted())),
        at: node)
      return nil
    }
    let what = "step '\(name)' of task '\(task)'"
    var parameters = Parameters(what: what, at: node)
    if let value {
      if case .mapping(let entries) = value.kind {
        guard reader.mapping(value, what: what, allowed: spec.keys) != nil else { return nil }
        for entry in entries { parameters.values[entry.name] = entry.value }
      } else if let main = spec.main {
        parameters.values[main] = value
      } else {
        if spec.keys.isEmpty {
          reader.fail(.invalidValue(what: what, reason: "takes no parameters, found \(value.quotedOrKind)"), at: value)
        } else {
          reader.wrongType(what, expected: "a mapping of parameters", value)
        }
        return nil
      }
    }
    let errorsBefore = reader.diagnostics.count
    let kind = decodeKind(name, &parameters)
    guard let kind, reader.diagnostics.count == errorsBefore else { return nil }
    return ImageStep(kind: kind, location: node.location)
  }

  struct Parameters {
    var what: String
    var at: YAMLNode
    var values: [String: YAMLNode] = [:]
    init(what: String, at: YAMLNode) {
      self.what = what
      self.at = at
    }
  }

  mutating func number(_ p: Parameters, _ key: String, _ fallback: Double, _ range: ClosedRange<Double>) -> Double {
    guard let node = p.values[key] else { return fallback }
    return reader.number(node, what: "'\(key)' of \(p.what)", range: range) ?? fallback
  }

  mutating func integer(_ p: Parameters, _ key: String, _ range: ClosedRange<Int>) -> Int? {
    guard let node = p.values[key] else { return nil }
    return reader.integer(node, what: "'\(key)' of \(p.what)", range: range)
  }

  mutating func text(_ p: Parameters, _ key: String) -> String? {
    guard let node = p.values[key] else { return nil }
    return reader.string(node, what: "'\(key)' of \(p.what)")
  }

  mutating func require<T>(_ value: T?, _ p: Parameters, _ message: String) -> T? {
    if value == nil { reader.fail(.invalidValue(what: p.what, reason: message), at: p.at) }
    return value
  }
}
