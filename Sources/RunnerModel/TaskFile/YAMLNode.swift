/// A YAML node as runner sees it: scalars stay strings (typing is the schema's job).
package struct YAMLNode: Sendable {
  package enum Kind: Sendable {
    /// `plain` is false for quoted and block scalars, which are never null.
    case scalar(String, plain: Bool)
    case sequence([YAMLNode])
    case mapping([YAMLEntry])
  }

  package var kind: Kind
  package var location: SourceLocation
  /// Nodes in this subtree, counting alias expansions: the budget against alias bombs.
  var weight: Int

  init(_ kind: Kind, at location: SourceLocation, weight: Int = 1) {
    self.kind = kind
    self.location = location
    self.weight = weight
  }

  /// True for an absent value: an empty plain scalar, `~` or `null`.
  package var isNull: Bool {
    if case .scalar(let text, plain: true) = kind { return text.isEmpty || text == "~" || text == "null" }
    return false
  }

  package var scalar: String? {
    if case .scalar(let text, _) = kind, !isNull { return text }
    return nil
  }

  /// The kind as a person would name it in an error: "a mapping", "a list", "a string".
  package var kindName: String {
    if isNull { return "nothing" }
    switch kind {
    case .scalar: return "a string"
    case .sequence: return "a list"
    case .mapping: return "a mapping"
    }
  }
}

package struct YAMLEntry: Sendable {
  package var key: YAMLNode
  package var value: YAMLNode
  /// The key's text (mapping keys are always scalars: the parser rejects others).
  package var name: String {
    if case .scalar(let text, _) = key.kind { return text }
    return ""
  }
}

extension YAMLNode {
  /// This node with `${{ item }}` replaced by `value` in every scalar: one round of a call's
  /// `for:`.
  func replacingItem(with value: String) -> YAMLNode {
    var node = self
    switch kind {
    case .scalar(let text, let plain):
      node.kind = .scalar(Self.replacingItem(in: text, with: value), plain: plain)
    case .sequence(let items):
      node.kind = .sequence(items.map { $0.replacingItem(with: value) })
    case .mapping(let entries):
      node.kind = .mapping(entries.map { YAMLEntry(key: $0.key, value: $0.value.replacingItem(with: value)) })
    }
    return node
  }

  /// `text` with each `${{ item }}` (any blanks inside the braces) replaced by `value`.
  static func replacingItem(in text: String, with value: String) -> String {
    var out = ""
    var rest = Substring(text)
    while let open = rest.firstRange(of: "${{") {
      out += rest[..<open.lowerBound]
      let inner = rest[open.upperBound...].drop { $0 == " " }
      let after = inner.dropFirst("item".count).drop { $0 == " " }
      if inner.hasPrefix("item"), after.hasPrefix("}}") {
        out += value
        rest = after.dropFirst(2)
      } else {
        out += "${{"
        rest = rest[open.upperBound...]
      }
    }
    return out + rest
  }
}
