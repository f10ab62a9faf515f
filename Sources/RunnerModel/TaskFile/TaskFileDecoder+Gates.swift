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
      var written: String?
      var failed = false
      for entry in entries {
        let field = "'\(entry.name)' of a gate in \(what())"
        switch entry.name {
        case "timeout":
          if let limit = reader.timeLimit(entry.value, what: field) { timeout = limit == .zero ? nil : limit }
        case "file":
          guard let text = reader.string(entry.value, what: field) else {
            failed = true
            continue
          }
          if ReadinessGate.readsValues(text) { written = text }
          conditions.append(.file(text))
        case "command": reader.string(entry.value, what: field).map { conditions.append(.command($0)) }
        case "tcp":
          guard let text = reader.string(entry.value, what: field) else {
            failed = true
            continue
          }
          if ReadinessGate.readsValues(text) {
            // Filled in with the task's values when the file is expanded, then checked.
            written = text
            conditions.append(.tcp(host: text, port: 0))
            continue
          }
          guard let condition = ReadinessGate.tcp(text) else {
            reader.fail(.invalidValue(what: field, reason: "must be HOST:PORT, found '\(text)'"), at: entry.value)
            failed = true
            continue
          }
          conditions.append(condition)
        default: break
        }
      }
      // A field already reported: no second, false error about the gate.
      if failed, conditions.isEmpty { continue }
      guard conditions.count == 1, let condition = conditions.first else {
        reader.fail(
          .invalidValue(what: "a gate in \(what())", reason: "needs exactly one of 'file', 'tcp' or 'command'"),
          at: item)
        continue
      }
      var gate = ReadinessGate(condition: condition, timeout: timeout, location: item.location)
      gate.written = written
      result.append(gate)
    }
    return result
  }

  /// `preconditions: [CMD, { sh: CMD, msg: TEXT }]`.
  mutating func preconditions(_ node: YAMLNode, what: @autoclosure () -> String) -> [Precondition] {
    guard case .sequence(let items) = node.kind else {
      reader.wrongType(what(), expected: "a list of commands or { sh, msg } mappings", node)
      return []
    }
    var result: [Precondition] = []
    for item in items {
      if case .scalar = item.kind, let command = reader.string(item, what: "an entry of \(what())") {
        result.append(Precondition(command: command, message: nil, location: item.location))
        continue
      }
      guard let entries = reader.mapping(item, what: "an entry of \(what())", allowed: ["sh", "msg"]) else { continue }
      let command = entries.first { $0.name == "sh" }.flatMap { reader.string($0.value, what: "'sh' of \(what())") }
      let message = entries.first { $0.name == "msg" }.flatMap { reader.string($0.value, what: "'msg' of \(what())") }
      guard let command else {
        reader.fail(.invalidValue(what: "an entry of \(what())", reason: "needs 'sh: COMMAND'"), at: item)
        continue
      }
      result.append(Precondition(command: command, message: message, location: item.location))
    }
    return result
  }
}
