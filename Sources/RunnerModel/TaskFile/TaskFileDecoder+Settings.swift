/// The keys of issue 14's task files: params, dotenv, matrix, conditions and `with:`.
extension TaskFileDecoder {
  static let paramKeys = ["default", "choices", "required", "desc"]
  static let matrixSpecialKeys = ["include", "exclude"]

  /// `params: { NAME: { default, choices, required, desc } }`; `NAME: value` is short for a default.
  mutating func params(_ node: YAMLNode, what: String) -> [ParamDeclaration] {
    if node.isNull { return [] }
    guard let entries = reader.mapping(node, what: what) else { return [] }
    var result: [ParamDeclaration] = []
    for entry in entries {
      guard VariableText.isValidName(entry.name) else {
        reader.fail(
          .invalidValue(
            what: "param name '\(entry.name)'",
            reason: "is not valid (letters, digits and '_', not starting with a digit: it is also a variable)"),
          at: entry.key)
        continue
      }
      var param = ParamDeclaration(name: entry.name, location: entry.key.location)
      let place = "param '\(entry.name)'"
      switch entry.value.kind {
      case .scalar where entry.value.isNull:
        break
      case .scalar(let text, _):
        param.defaultValue = checkedDefault(text, at: entry.value, place: place)
      case .sequence:
        reader.wrongType(
          place, expected: "a default value or a mapping (default, choices, required, desc)", entry.value)
      case .mapping:
        guard let keys = reader.mapping(entry.value, what: place, allowed: Self.paramKeys) else { continue }
        for key in keys {
          switch key.name {
          case "default":
            if case .mapping = key.value.kind {
              guard let command = reader.mapping(key.value, what: "'default' of \(place)", allowed: ["sh"]) else {
                break
              }
              param.defaultCommand = command.first.flatMap { reader.string($0.value, what: "'sh' of \(place)") }
            } else if !key.value.isNull {
              param.defaultValue = reader.string(key.value, what: "'default' of \(place)").flatMap {
                checkedDefault($0, at: key.value, place: place)
              }
            }
          case "choices":
            param.choices = reader.strings(key.value, what: "'choices' of \(place)")?.map(\.0) ?? []
          case "required": param.isRequired = reader.boolean(key.value, what: "'required' of \(place)") ?? false
          case "desc": param.description = reader.string(key.value, what: "'desc' of \(place)")
          default: break
          }
        }
      }
      if let value = param.defaultValue, !param.choices.isEmpty, !param.choices.contains(value),
        !Template.containsExpression(value)
      {
        reader.fail(
          .invalidValue(
            what: "the default of \(place)",
            reason: "'\(value)' is not one of its choices (\(param.choices.joined(separator: ", ")))"),
          at: entry.value)
      }
      if param.isRequired, param.defaultValue != nil || param.defaultCommand != nil {
        reader.fail(.invalidValue(what: place, reason: "is required and has a default: keep one"), at: entry.value)
      }
      result.append(param)
    }
    return result
  }

  /// A param's default: it may read other params and `runner.*`, known before the run.
  mutating func checkedDefault(_ text: String, at node: YAMLNode, place: String) -> String? {
    guard Template.containsExpression(text) else { return text }
    do {
      let template = try Template.parse(text)
      for part in template.parts {
        switch part {
        case .output, .matrix:
          reader.fail(
            .malformedExpression(text, reason: "the default of \(place) may read params and 'runner.*'"), at: node)
          return nil
        default: continue
        }
      }
      return text
    } catch {
      reader.fail(error, at: node)
      return nil
    }
  }

  /// `includes: { NAMESPACE: PATH, NAMESPACE: { path: PATH, optional: true }, '*': GLOB }`.
  mutating func includes(_ node: YAMLNode) -> [IncludeDeclaration] {
    if node.isNull { return [] }
    guard let entries = reader.mapping(node, what: "'includes'") else { return [] }
    var result: [IncludeDeclaration] = []
    for entry in entries {
      let what = "include '\(entry.name)'"
      if entry.name != "*", entry.name.contains(":") || !checkName(entry.name, at: entry.key) {
        if entry.name.contains(":") {
          reader.fail(.invalidValue(what: "namespace '\(entry.name)'", reason: "cannot hold ':'"), at: entry.key)
        }
        continue
      }
      var include = IncludeDeclaration(namespace: entry.name, path: "", location: entry.value.location)
      if let path = entry.value.scalar {
        include.path = path
      } else if let keys = reader.mapping(entry.value, what: what, allowed: ["path", "optional", "dir", "with"]) {
        for key in keys {
          if key.name == "with" { include.with = withValues(key.value, what: "'with' of \(what)") }
          if key.name == "path" { include.path = reader.string(key.value, what: "'path' of \(what)") ?? "" }
          if key.name == "dir" { include.directory = reader.string(key.value, what: "'dir' of \(what)") }
          if key.name == "optional" {
            include.isOptional = reader.boolean(key.value, what: "'optional' of \(what)") ?? false
          }
        }
      }
      if include.path.isEmpty {
        reader.fail(.invalidValue(what: what, reason: "needs a path"), at: entry.value)
        continue
      }
      if entry.name == "*", !include.path.contains(where: { "*?[".contains($0) }) {
        reader.fail(
          .invalidValue(what: what, reason: "'*' names each match of a glob after its directory: give a glob"),
          at: entry.value)
        continue
      }
      result.append(include)
    }
    return result
  }

  /// `dotenv: [.env, { path: .env.local, optional: true }, { sh: CMD, override: true }]`.
  mutating func dotenv(_ node: YAMLNode, what: String) -> [DotEnvReference] {
    let items: [YAMLNode]
    switch node.kind {
    case .sequence(let list): items = list
    case .scalar where node.isNull: return []
    default: items = [node]
    }
    var result: [DotEnvReference] = []
    for item in items {
      if let path = item.scalar {
        result.append(DotEnvReference(path: path, location: item.location))
        continue
      }
      guard
        let keys = reader.mapping(
          item, what: "an entry of \(what)", allowed: ["path", "sh", "optional", "override"])
      else { continue }
      var reference = DotEnvReference(path: "", location: item.location)
      for key in keys {
        switch key.name {
        case "path": reference.path = reader.string(key.value, what: "'path' in \(what)") ?? ""
        case "sh": reference.command = reader.string(key.value, what: "'sh' in \(what)")
        case "optional": reference.isOptional = reader.boolean(key.value, what: "'optional' in \(what)") ?? false
        case "override": reference.isOverriding = reader.boolean(key.value, what: "'override' in \(what)") ?? false
        default: break
        }
      }
      if reference.command != nil, !reference.path.isEmpty {
        reader.fail(.invalidValue(what: "an entry of \(what)", reason: "takes 'path' or 'sh', not both"), at: item)
        continue
      }
      if reference.path.isEmpty, reference.command?.isEmpty ?? true {
        reader.fail(
          .invalidValue(
            what: "an entry of \(what)", reason: "needs a 'path' (a file) or 'sh' (a command that prints one)"),
          at: item)
        continue
      }
      if reference.command != nil, reference.isOptional {
        reader.fail(
          .invalidValue(
            what: "an entry of \(what)", reason: "'optional' is for a file: a command that fails is an error"),
          at: item)
        continue
      }
      result.append(reference)
    }
    return result
  }

  /// `matrix: { AXIS: [values], include: [{...}], exclude: [{...}] }`.
  mutating func matrix(_ node: YAMLNode, what: String) -> MatrixDeclaration? {
    guard let entries = reader.mapping(node, what: what) else { return nil }
    var matrix = MatrixDeclaration(location: node.location)
    for entry in entries {
      switch entry.name {
      case "include", "exclude":
        guard case .sequence(let items) = entry.value.kind else {
          reader.wrongType("'\(entry.name)' of \(what)", expected: "a list of mappings", entry.value)
          continue
        }
        var list: [[(String, String)]] = []
        for item in items {
          guard let keys = reader.mapping(item, what: "an entry of '\(entry.name)' of \(what)") else { continue }
          list.append(
            keys.compactMap { key in
              reader.string(key.value, what: "'\(key.name)' in '\(entry.name)' of \(what)").map { (key.name, $0) }
            })
        }
        if entry.name == "include" { matrix.include = list } else { matrix.exclude = list }
      default:
        guard VariableText.isValidName(entry.name) else {
          reader.fail(.invalidValue(what: "matrix axis '\(entry.name)'", reason: "is not a valid name"), at: entry.key)
          continue
        }
        guard let values = reader.strings(entry.value, what: "axis '\(entry.name)' of \(what)"), !values.isEmpty
        else { continue }
        matrix.axes.append(.init(name: entry.name, values: values.map(\.0)))
      }
    }
    // Counted before they are made: 40 axes of 2 values are a trillion combinations.
    var count = 1
    for axis in matrix.axes where count <= MatrixDeclaration.maximumCombinations {
      count *= axis.values.count
    }
    guard count + matrix.include.count <= MatrixDeclaration.maximumCombinations else {
      reader.fail(
        .invalidValue(
          what: what,
          reason: "makes more than \(MatrixDeclaration.maximumCombinations) combinations (split it into tasks)"),
        at: node)
      return nil
    }
    if matrix.combinations.isEmpty {
      reader.fail(.invalidValue(what: what, reason: "has no combination left"), at: node)
      return nil
    }
    return matrix
  }

  /// `if: COMMAND` or `if: ${{ EXPRESSION }}`.
  mutating func condition(_ node: YAMLNode, what: String) -> TaskCondition? {
    guard let text = reader.string(node, what: what) else { return nil }
    let trimmed = Substring(text).trimmingSpaces()
    guard trimmed.hasPrefix("${{") else {
      if Template.containsExpression(text) {
        reader.fail(
          .malformedExpression(text, reason: "a condition is a command or one whole '${{ }}' expression"), at: node)
        return nil
      }
      return .command(text)
    }
    guard trimmed.hasSuffix("}}") else {
      reader.fail(.malformedExpression(text, reason: "missing '}}'"), at: node)
      return nil
    }
    let body = String(trimmed.dropFirst(3).dropLast(2))
    do {
      return .expression(try ConditionExpression.parse(body))
    } catch {
      reader.fail(.malformedExpression(text, reason: error.message), at: node)
      return nil
    }
  }

  /// `deps`: names, or `{ task, with, for }` entries (a `for:` one entry per value).
  mutating func dependencies(_ node: YAMLNode, what: @autoclosure () -> String, task: inout TaskDefinition)
    -> [Dependency]
  {
    let items: [YAMLNode]
    switch node.kind {
    case .sequence(let list): items = list
    case .scalar where !node.isNull: items = [node]
    default:
      reader.wrongType(what(), expected: "a list of task names", node)
      return []
    }
    // A name twice is found in `result` itself while it is short, through a set once it is long.
    var seen: Set<String>? = nil
    var result: [Dependency] = []
    result.reserveCapacity(items.count)
    for item in items {
      if case .sequence = item.kind {
        reader.fail(.wrongType(what: what(), expected: "a list of task names", found: "a list in the list"), at: item)
        continue
      }
      if item.isNull {
        reader.fail(.wrongType(what: what(), expected: "a list of task names", found: "nothing in the list"), at: item)
        continue
      }
      if let name = item.scalar {
        // A plain name (most entries of a large file): no list of one made for it.
        add(Dependency(name: name, location: item.location), found: false)
        continue
      }
      let repeated = repeating(item, what: what(), task: &task)
      for item in repeated.calls {
        guard let dependency = dependency(item, what: what()) else { continue }
        add(dependency, found: repeated.found)
      }
    }
    return result

    /// `found`: the entry is one of the values a `for:` found, where a name twice is one edge.
    func add(_ dependency: Dependency, found: Bool) {
      let key = Self.key(of: dependency)
      let isNew: Bool
      if seen != nil {
        isNew = seen!.insert(key).inserted
      } else {
        isNew = !result.contains { Self.key(of: $0) == key }
        if isNew, result.count >= 16 { seen = Set(result.map(Self.key(of:)) + [key]) }
      }
      guard isNew else {
        // The same value twice in what a `for:` found: one edge, as for a task named twice.
        if !found {
          reader.fail(.duplicateDependency(task: task.name, dependency: dependency.name), at: dependency.location)
        }
        return
      }
      result.append(dependency)
    }
  }

  /// What tells two entries of one `deps` list apart: the name, and the values `with` gives.
  static func key(of dependency: Dependency) -> String {
    dependency.with.isEmpty
      ? dependency.name : dependency.name + dependency.with.map { "\u{0}\($0.name)=\($0.value)" }.joined()
  }

  /// One `deps` entry: a name, or `{ task: NAME, with: { PARAM: value } }`.
  /// - Parameter what: worded only for an entry that is not a plain name (a file of 10 000
  ///   `deps` words none).
  mutating func dependency(_ node: YAMLNode, what: @autoclosure () -> String) -> Dependency? {
    if let name = node.scalar { return Dependency(name: name, location: node.location) }
    let what = what()
    guard let keys = reader.mapping(node, what: "an entry of \(what)", allowed: ["task", "with", "args"]) else {
      return nil
    }
    var dependency = Dependency(name: "", location: node.location)
    for key in keys {
      switch key.name {
      case "task":
        dependency.name = reader.string(key.value, what: "'task' in \(what)") ?? ""
        dependency.location = key.value.location
      case "with":
        dependency.with = withValues(key.value, what: "'with' in \(what)")
      case "args":
        // `args: pass`: the words after `--` that reach the task reach this one too.
        if key.value.scalar == "pass" {
          dependency.passesArguments = true
        } else {
          reader.fail(.invalidValue(what: "'args' in \(what)", reason: "can only be 'pass'"), at: key.value)
        }
      default: break
      }
    }
    if dependency.name.isEmpty {
      reader.fail(.invalidValue(what: "an entry of \(what)", reason: "needs 'task: NAME'"), at: node)
      return nil
    }
    return dependency
  }

  mutating func withValues(_ node: YAMLNode, what: String) -> [ParamValue] {
    guard let entries = reader.mapping(node, what: what) else { return [] }
    var result: [ParamValue] = []
    for entry in entries {
      guard case .scalar(let text, _) = entry.value.kind else {
        reader.wrongType("'\(entry.name)' in \(what)", expected: "a string", entry.value)
        continue
      }
      do {
        // Outputs of the caller's deps are read when the call starts (`TaskFileExpander.target`).
        let value = try Template.parse(entry.value.isNull ? "" : text)
        result.append(ParamValue(name: entry.name, value: value, location: entry.value.location))
      } catch {
        reader.fail(error, at: entry.value)
      }
    }
    return result
  }
}
