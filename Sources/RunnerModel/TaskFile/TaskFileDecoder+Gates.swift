extension TaskFileDecoder {
  static let gateKeys = ["file", "tcp", "command", "timeout"]
  static let defaultGateTimeout = Duration.seconds(60)

  /// `wait_for`: one gate or a list of them, each `file:`, `tcp:` or `command:` with an optional `timeout`.
  mutating func gates(_ node: YAMLNode, what: @autoclosure () -> String) -> [ReadinessGate] {
    let items: [YAMLNode]
    switch node.kind {
    case .sequence(let list): items = list
    case .mapping: items = [node]
    case .scalar:
      reader.wrongType(what(), expected: "a gate (file:, tcp: or command:) or a list of them", node)
      return []
    }
    var result: [ReadinessGate] = []
    for item in items {
      guard
        let entries = reader.mapping(
          item, what: "a gate in \(what())", allowed: Self.gateKeys, place: "a gate in \(what())")
      else { continue }
      var timeout: Duration? = Self.defaultGateTimeout
      var conditions: [ReadinessGate.Condition] = []
      for entry in entries {
        let field = "'\(entry.name)' of a gate in \(what())"
        switch entry.name {
        case "timeout":
          if let limit = reader.timeLimit(entry.value, what: field) { timeout = limit == .zero ? nil : limit }
        case "file": reader.string(entry.value, what: field).map { conditions.append(.file($0)) }
        case "command": reader.string(entry.value, what: field).map { conditions.append(.command($0)) }
        case "tcp":
          guard let text = reader.string(entry.value, what: field) else { continue }
          guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port), colon > text.startIndex
          else {
            reader.fail(.invalidValue(what: field, reason: "must be HOST:PORT, found '\(text)'"), at: entry.value)
            continue
          }
          conditions.append(.tcp(host: String(text[..<colon]), port: port))
        default: break
        }
      }
      guard conditions.count == 1, let condition = conditions.first else {
        reader.fail(
          .invalidValue(what: "a gate in \(what())", reason: "needs exactly one of 'file', 'tcp' or 'command'"),
          at: item)
        continue
      }
      result.append(ReadinessGate(condition: condition, timeout: timeout, location: item.location))
    }
    return result
  }
}
