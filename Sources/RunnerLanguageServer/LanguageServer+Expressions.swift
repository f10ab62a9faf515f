import RunnerBasics
import RunnerModel

/// Completion inside `${{ … }}` and in `image:` lists; where a param is declared.
extension LanguageServer {
  static let hostValues: [(name: String, detail: String)] = [
    ("os", "The kernel's name in lower case: linux."),
    ("arch", "The machine as `uname -m` prints it: x86_64, aarch64."),
    ("exe_suffix", "What executables end in: empty here."),
    ("root", "The root task file's directory."),
    ("args", "The words after `--` on the command line, joined."),
  ]

  /// The text after the last `${{` of `before` that no `}}` closes; nil outside an expression.
  static func openExpression(_ before: Substring) -> Substring? {
    guard let open = before.ranges(of: "${{").last else { return nil }
    let inside = before[open.upperBound...]
    guard !inside.contains("}}") else { return nil }
    return inside.trimmingLeadingBlanks()
  }

  /// The task whose keys enclose a line (`tasks: NAME: …`), as the outline names it.
  func enclosingTask(_ path: [String], outline: Outline, namespace: String) -> Outline.Entry? {
    guard path.count >= 2, path[0] == "tasks" else { return nil }
    return outline.task(path[1], from: namespace)
  }

  /// What may follow in `${{ deps.NAME.outputs.KEY }}`, `${{ params.NAME }}` and
  /// `${{ runner.NAME }}`, from the part being written (`matrix` itself, not its axes).
  func expressionCompletion(_ inside: Substring, task: Outline.Entry?, outline: Outline, namespace: String)
    -> JSONValue
  {
    let parts = inside.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    let params = task?.params ?? outline.params
    switch (parts.count, parts.first ?? "") {
    case (1, _):
      var roots = [("params", "The task's params and the file's."), ("runner", "Host values.")]
      if task != nil {
        roots.insert(("deps", "A direct dependency's outputs: deps.NAME.outputs.KEY."), at: 0)
        roots.append(("matrix", "The value of a matrix axis."))
      }
      return .array(roots.map { Self.item($0.0, kind: 9, detail: $0.1) })
    case (2, "deps"):
      return .array(
        (task?.dependencies ?? []).map { name in
          Self.item(name, kind: 3, detail: outline.task(name, from: namespace)?.description ?? "a dependency")
        })
    case (3, "deps"):
      return .array([Self.item("outputs", kind: 9, detail: "What \(parts[1]) wrote to $RUNNER_OUTPUT.")])
    case (4, "deps") where parts[2] == "outputs":
      guard let dependency = outline.task(parts[1], from: namespace) else { return .array([]) }
      return .array(dependency.outputKeys.map { Self.item($0, kind: 10, detail: "an output of \(parts[1])") })
    case (2, "params"):
      return .array(params.map { Self.item($0.name, kind: 6, detail: $0.description ?? Self.shown($0)) })
    case (2, "runner"):
      return .array(Self.hostValues.map { Self.item($0.name, kind: 21, detail: $0.detail) })
    default:
      return .array([])
    }
  }

  /// In an `image:` list: the step names where a step starts, a step's parameters inside it.
  func imageStepCompletion(line: Int, before: Substring, path: [String], text: DocumentText) -> JSONValue? {
    let trimmed = before.trimmingLeadingBlanks()
    let steps = ImageStep.parameters
    // `- resize: { wi` or a step's block mapping: its parameters.
    let step: String? =
      if let flow = Self.openFlowKey(before), steps[flow] != nil, text.listOwner(line: line) == "image" {
        flow
      } else if path.count >= 4, path[path.count - 2] == "image", steps[path[path.count - 1]] != nil {
        path[path.count - 1]
      } else { nil }
    if let step, let entry = steps[step] {
      return .array(entry.keys.map { Self.item($0, kind: 5, detail: "a parameter of \(step)") })
    }
    guard trimmed.hasPrefix("-"), !trimmed.contains(":"), text.listOwner(line: line) == "image" else { return nil }
    return .array(
      steps.keys.sorted().map { name in
        let entry = steps[name]!
        var detail = entry.keys.isEmpty ? "no parameters" : "parameters: " + entry.keys.joined(separator: ", ")
        if let main = entry.main { detail += "; a scalar sets \(main)" }
        return Self.item(name, kind: 3, detail: detail)
      })
  }

  /// The declaration of the param named at a position: `${{ params.NAME }}` in a task (or the
  /// file), or a key of `with:` (the called task's).
  func paramDeclaration(word: String, line: Int, text: DocumentText, uri: String) -> ParamDeclaration? {
    guard let (outline, namespace) = view(of: uri) else { return nil }
    let path = text.keyPath(line: line)
    if word.hasPrefix("params.") {
      let name = word.dropFirst("params.".count)
      let params = enclosingTask(path, outline: outline, namespace: namespace)?.params ?? outline.params
      return params.first { $0.name == name }
    }
    guard path.last == "with" || text.line(line).contains("with:"),
      let called = Self.calledTask(line: line, in: text), called != word,
      let task = outline.task(called, from: namespace)
    else { return nil }
    return task.params.first { $0.name == word }
  }
}

extension LanguageServer {
  /// The task a call names on `line` (`- task: NAME, with: {…}`), or, in a block-style
  /// `with:` under `- task: NAME`, the one that call names.
  static func calledTask(line: Int, in text: DocumentText) -> String? {
    if let called = calledTask(in: String(text.line(line))) { return called }
    guard let call = text.parents(line: line).last(where: { $0.key == "task" }) else { return nil }
    return calledTask(in: "task:" + call.value)
  }
}

extension DocumentText {
  /// The key whose block sequence holds the item on `line` (`image` for a `- blur: 2` under
  /// `image:`, at its indentation or deeper); nil when the line is no item.
  func listOwner(line: Int) -> String? {
    let own = self.line(line)
    guard own.trimmingLeadingBlanks().hasPrefix("-") else { return nil }
    let indent = indentation(of: own)
    var index = line - 1
    while index >= 0 {
      let text = self.line(index)
      let trimmed = text.trimmingLeadingBlanks()
      defer { index -= 1 }
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      let level = indentation(of: text)
      if level > indent || (level == indent && trimmed.hasPrefix("-")) { continue }
      guard trimmed.hasSuffix(":"), !trimmed.hasPrefix("-") else { return nil }
      return String(trimmed.dropLast()).trimmingQuotes()
    }
    return nil
  }
}
