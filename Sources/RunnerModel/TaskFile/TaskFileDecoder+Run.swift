extension TaskFileDecoder {
  /// `run`: a command, or a list of commands, task calls (`- task:`, with `with:`, `for:`,
  /// `args:`) and commands whose failure is ignored (`- run:` with `ignore_error`).
  mutating func commands(_ node: YAMLNode, task definition: inout TaskDefinition) -> [Command] {
    let task = definition.name
    let what = "'run' of task '\(task)'"
    if case .sequence(let list) = node.kind, list.isEmpty {
      // Said once here, so running, `-n` and `--graph` agree (an empty list crashed `-n`).
      reader.fail(
        .invalidValue(what: what, reason: "is an empty list: give it a command, or leave 'run' out for a group"),
        at: node)
      return []
    }
    if case .sequence(let list) = node.kind,
      list.contains(where: { if case .mapping = $0.kind { true } else { false } })
    {
      // A list with task calls: `- task: NAME` (with `with:`) between commands.
      var result: [Command] = []
      for item in list {
        if case .mapping(let entries) = item.kind {
          if entries.contains(where: { $0.name == "run" }) {
            // `- run: CMD` with `ignore_error: true`: a command whose failure the list goes past.
            guard let keys = reader.mapping(item, what: "an entry of \(what)", allowed: ["run", "ignore_error"]),
              let text = keys.first(where: { $0.name == "run" }).flatMap({ reader.string($0.value, what: what) })
            else { continue }
            if Template.containsExpression(text) {
              reader.fail(.expressionOutsideEnv(task: task, key: "run"), at: item)
            }
            var command = Command(text: text, location: item.location)
            command.ignoresError =
              keys.first { $0.name == "ignore_error" }.flatMap {
                reader.boolean($0.value, what: "'ignore_error' in \(what)")
              } ?? false
            result.append(command)
            continue
          }
          if !entries.contains(where: { $0.name == "task" }), let first = entries.first {
            // `- echo Building: done` is YAML for a mapping: the command needs quotes.
            reader.fail(
              .invalidValue(
                what: "'\(first.name): …' in \(what)",
                reason:
                  "is read as a mapping (a task call is '- task: NAME', a command '- run: CMD'); quote a command "
                  + "that holds ': '"),
              at: item)
            continue
          }
          // `for: [a, b]`: the call once per value, in order, `${{ item }}` standing for it.
          let repeated = repeating(item, what: what, task: &definition).calls
          for item in repeated {
            if let call = dependency(item, what: what) {
              result.append(Command(text: "task: \(call.name)", location: call.location, call: call))
            }
          }
        } else if let text = item.scalar {
          if Template.containsExpression(text) { reader.fail(.expressionOutsideEnv(task: task, key: "run"), at: item) }
          result.append(Command(text: text, location: item.location))
        } else {
          reader.wrongType(what, expected: "a list of commands and task calls", item)
        }
      }
      return result
    }
    guard let items = reader.strings(node, what: what, expected: "a command or a list of commands") else { return [] }
    for (text, location) in items where Template.containsExpression(text) {
      reader.fail(.expressionOutsideEnv(task: task, key: "run"), at: location)
    }
    return items.map { Command(text: $0.0, location: $0.1) }
  }
}
