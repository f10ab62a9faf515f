import RunnerModel

/// What decides whether a task runs: `status`, `preconditions`, `requires`.
extension TaskfileImporter {
  /// `status`: up to date when every command succeeds → runs `if` any fails.
  func status(_ node: YAMLNode, _ context: Context, _ state: inout TaskState, _ report: inout ImportReport)
    -> String?
  {
    guard case .sequence(let items) = node.kind, let first = items.first else { return nil }
    let checks = items.compactMap { item in
      item.scalar.map { convertCommand($0, line: item.location.line, context, &state, &report) }
    }
    report.approximate(
      "status", at: first.location.line,
      "an if: that skips the task when every status command succeeds; a skipped task is not 'up to date' "
        + "(consider sources and outputs)")
    return "! { " + checks.joined(separator: " && ") + "; }"
  }

  /// `preconditions`: runner's own, each with its message.
  func preconditions(
    _ node: YAMLNode, _ context: Context, _ state: inout TaskState, _ report: inout ImportReport
  ) -> [(command: String, message: String?)] {
    guard case .sequence(let items) = node.kind else { return [] }
    return items.compactMap { item in
      var check = item.scalar
      var message: String?
      if case .mapping(let fields) = item.kind {
        check = fields.first { $0.name == "sh" }?.value.scalar
        message = fields.first { $0.name == "msg" }?.value.scalar
      }
      guard let check else { return nil }
      return (convertCommand(check, line: item.location.line, context, &state, &report), message)
    }
  }

  /// `requires: {vars: [...]}`: required params, an `enum` of written values their choices. A
  /// var the task or the file defines already meets the requirement.
  func requires(
    _ node: YAMLNode, defined: [String], _ context: Context, _ report: inout ImportReport
  ) -> [ImportedParam] {
    guard case .mapping(let fields) = node.kind, let vars = fields.first(where: { $0.name == "vars" })?.value,
      case .sequence(let items) = vars.kind
    else { return [] }
    return items.compactMap { item in
      var entry: [YAMLEntry] = []
      if case .mapping(let fields) = item.kind { entry = fields }
      guard let name = item.scalar ?? entry.first(where: { $0.name == "name" })?.value.scalar else { return nil }
      let choices: [String]?
      let written = entry.first(where: { $0.name == "enum" })?.value
      switch written?.kind {
      case nil: choices = []
      case .sequence: choices = written.flatMap { Self.words(of: $0) }
      default: choices = written.flatMap { structured($0, context) }.flatMap { Self.words(of: $0) }
      }
      let isDefined =
        defined.contains(name) || context.fileParams[name] != nil || context.commandVars[name] != nil
        || context.inlineVars[name] != nil || context.structuredVars[name] != nil
      if isDefined || choices == nil, !(choices ?? ["?"]).isEmpty {
        report.approximate(
          "requires: \(name): enum", at: item.location.line,
          isDefined ? "the value the task or the file gives it is not checked" : "only a written list becomes choices")
      }
      guard !isDefined else { return nil }
      var param = ImportedParam(name: name, required: true)
      param.choices = choices ?? []
      return param
    }
  }

  /// A list of scalars' values; nil for anything else.
  static func words(of node: YAMLNode) -> [String]? {
    guard case .sequence(let values) = node.kind, values.allSatisfy({ $0.scalar != nil }) else { return nil }
    return values.compactMap(\.scalar)
  }
}
