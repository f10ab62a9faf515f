/// Turns a decoded task file into the tasks a graph is made of: one node per task and
/// distinct param values (`build`, `build[mode=release]`), one per matrix combination
/// (`test[py=3.12]`, with `test` a group of them), every `${{ params.X }}`, `${{ matrix.X }}`,
/// `${{ runner.os }}` and `${NAME}` filled in, `.env` files read, and the command line's params
/// and arguments given to the targets. Only dependencies' outputs are left for the run.
///
/// Environment precedence, strongest first: params (the command line's, a dependent's `with:`,
/// defaults), the task's `env`, the file's `env`, runner's own environment, the task's
/// `dotenv`, the file's `dotenv`.
struct TaskFileExpander {
  let file: TaskFile
  let invocation: Invocation
  let environment: [String: String]
  var diagnostics: [Diagnostic] = []
  var usageErrors: [Diagnostic] = []

  private var nodes: [TaskDefinition] = []
  private var nodeValues: [[String: String]] = []
  private var memo: [NodeKey: Int] = [:]
  private var pending: [Int] = []
  private var taskIndex: [String: Int] = [:]
  /// Per task: its param names (the file's, then its own).
  private var scope: [[String]] = []
  private var baseline: [[String: String]] = []
  private var rootValues: [String: String] = [:]
  /// Per scope (0: the root file): the params its tasks see, and their values.
  private var scopeParams: [[ParamDeclaration]] = []
  private var scopeValues: [[String: String]] = []
  private var fileEnvironment: [String: Template] = [:]
  private var fileDotEnv: [String: String] = [:]
  private var dotEnvCache: [String: [EnvironmentEntry]] = [:]
  private var otherFiles: [String] = []
  private var shadowed: [EnvironmentEntry] = []
  /// Nodes made per task: a bound on expansion (a `with:` that grows its own value never ends).
  private var variants: [Int: Int] = [:]
  static let variantLimit = 10_000
  private var matrixCombinations: [Int: [[(String, String)]]] = [:]

  struct NodeKey: Hashable {
    var task: Int
    var values: [String]
    var combination: Int
  }

  init(file: TaskFile, invocation: Invocation, environment: [String: String]) {
    self.file = file
    self.invocation = invocation
    self.environment = environment
  }

  /// - Throws: `DiagnosticList` with every problem found.
  mutating func expand() throws(DiagnosticList) -> TaskFile {
    if isPlain {
      // Nothing to expand (the common large file): the tasks are the nodes.
      nodes = file.tasks
      giveArguments()
      var result = file
      result.tasks = nodes
      return result
    }
    for task in file.tasks { taskIndex[task.name] = task.index }
    let scopes =
      file.scopes.isEmpty
      ? [IncludeScope(namespace: "", path: file.path, fileDirectory: file.directory, parent: nil)] : file.scopes
    for (index, included) in scopes.enumerated() {
      var params = included.parent.map { scopeParams[$0] } ?? []
      let own = index == 0 ? file.params : included.params
      params.removeAll { param in own.contains { $0.name == param.name } }
      scopeParams.append(params + own)
    }
    for task in file.tasks {
      let names = scopeParams[task.scope].map(\.name)
      scope.append(
        task.params.isEmpty
          ? names : names.filter { name in !task.params.contains { $0.name == name } } + task.params.map(\.name))
    }
    let overrides = commandLineValues(scopes)
    let base = baseEnvironment()
    for task in file.tasks {
      var values = scopeValues[task.scope]
      for param in task.params { values[param.name] = param.defaultValue }
      for (name, value) in overrides[task.index] ?? [:] { values[name] = value }
      baseline.append(values)
    }
    for task in file.tasks { _ = node(task.index, values: baseline[task.index], combination: nil) }
    while let next = pending.popLast() { resolveDependencies(of: next) }
    giveArguments()
    guard diagnostics.isEmpty, usageErrors.isEmpty else { throw DiagnosticList(diagnostics + usageErrors) }
    var result = file
    result.environment = base
    result.tasks = nodes
    result.otherFiles = file.otherFiles + otherFiles
    for entry in shadowed where !result.keyEnvironment.contains(entry.name) {
      // A `.env` name runner's environment overrides: the file names it, so its value counts.
      result.keyEnvironment.append(entry.name)
    }
    result.shadowedEnvironment = shadowed
    return result
  }

  /// True when expanding would change nothing: no params, `.env` files, includes, matrices,
  /// conditions, task calls, `with:`, `:name` or variables anywhere, and none on the command line.
  var isPlain: Bool {
    guard invocation.params.isEmpty, file.params.isEmpty, file.dotenv.isEmpty, file.scopes.count <= 1,
      file.environment.allSatisfy({ $0.value.isResolved })
    else { return false }
    return file.tasks.allSatisfy { task in
      guard task.params.isEmpty, task.matrix == nil, task.dotenv.isEmpty, task.condition == nil,
        task.environment.allSatisfy({ $0.value.isResolved }), !Self.readsValues(task),
        task.dependencies.allSatisfy({ $0.with.isEmpty && !$0.name.hasPrefix(":") })
      else { return false }
      if case .shell(let commands) = task.action, commands.contains(where: { $0.call != nil }) { return false }
      return true
    }
  }

  /// True when the task's `dir`, `sources` or `outputs` read params or matrix values.
  static func readsValues(_ task: TaskDefinition) -> Bool {
    task.directory.map(Template.containsExpression) ?? false
      || task.sources.contains(where: Template.containsExpression)
      || task.outputs.contains(where: Template.containsExpression)
  }

  // MARK: The command line

  /// The command line's `NAME=value`: per target task that declares NAME, and for the file.
  private mutating func commandLineValues(_ scopes: [IncludeScope]) -> [Int: [String: String]] {
    let named = targetTasks()
    var overrides: [Int: [String: String]] = [:]
    var fileOverrides: [String: String] = [:]
    for (name, value) in invocation.params {
      var declared = false
      for index in named {
        guard let param = file.tasks[index].params.first(where: { $0.name == name }) else { continue }
        declared = true
        if check(value, of: param, at: nil) { overrides[index, default: [:]][name] = value }
      }
      // Every file that declares it takes the value, so each one's choices must allow it.
      var declarations: [ParamDeclaration] = []
      for param in scopeParams.joined() where param.name == name && !declarations.contains(param) {
        declarations.append(param)
      }
      if !declarations.isEmpty {
        declared = true
        var allowed = true
        for param in declarations where !check(value, of: param, at: nil) { allowed = false }
        if allowed { fileOverrides[name] = value }
      }
      if !declared {
        let known =
          Array(Set(scopeParams.flatMap { $0.map(\.name) })).sorted()
          + named.flatMap { file.tasks[$0].params.map(\.name) }
        let targets = named.map { "'\(file.tasks[$0].name)'" }.joined(separator: ", ")
        let axis = named.first { file.tasks[$0].matrix?.axes.contains { $0.name == name } ?? false }
        let hint =
          axis.map {
            " ('\(name)' is a matrix axis: run one combination as '\(file.tasks[$0].name)[\(name)=\(value)]')"
          }
          ?? Suggestion.closest(to: name, in: known).map { " (did you mean '\($0)'?)" }
          ?? (known.isEmpty ? "" : " (params: \(known.joined(separator: ", ")))")
        usageErrors.append(
          Diagnostic(
            .error,
            "unknown param '\(name)': neither the task file nor \(targets.isEmpty ? "a target" : targets) declares it"
              + hint))
      }
    }
    for index in scopes.indices {
      var values = scopes[index].parent.map { scopeValues[$0] } ?? [:]
      let own = index == 0 ? file.params : scopes[index].params
      for param in own { values[param.name] = fileOverrides[param.name] ?? param.defaultValue }
      scopeValues.append(values)
    }
    rootValues = scopeValues[0]
    return overrides
  }

  /// True when `value` is one of `param`'s choices (or it has none); else records the error.
  private mutating func check(_ value: String, of param: ParamDeclaration, at location: SourceLocation?) -> Bool {
    guard !param.choices.isEmpty, !param.choices.contains(value) else { return true }
    let hint = Suggestion.closest(to: value, in: param.choices).map { " (did you mean '\($0)'?)" } ?? ""
    let diagnostic = Diagnostic(
      .error,
      "'\(value)' is not a choice of param '\(param.name)' (\(param.choices.joined(separator: ", ")))\(hint)",
      at: location)
    if location == nil { usageErrors.append(diagnostic) } else { diagnostics.append(diagnostic) }
    return false
  }

  static func choices(_ param: ParamDeclaration) -> String {
    param.choices.isEmpty ? "" : " (one of: \(param.choices.joined(separator: ", ")))"
  }

  // MARK: The file's environment

  /// The file's `dotenv` (what runner's environment does not set), `env` and params, in the
  /// order they apply over runner's environment.
  private mutating func baseEnvironment() -> [EnvironmentEntry] {
    var entries: [EnvironmentEntry] = []
    for entry in dotEnv(file.dotenv, directory: file.directory) {
      let value = entry.value.render { _, _ in nil }
      if environment[entry.name] == nil {
        entries.append(entry)
        fileDotEnv[entry.name] = value
      } else {
        shadowed.append(entry)
      }
    }
    for entry in file.environment {
      var resolved = entry
      let (known, values, inherited, dotEnv) = (fileEnvironment, rootValues, environment, fileDotEnv)
      resolved.value = resolve(entry.value, at: entry.location, task: nil, values: rootValues, combination: []) {
        name in
        known[name].map { $0.parts } ?? values[name].map { [.literal($0)] }
          ?? inherited[name].map { [.literal($0)] } ?? dotEnv[name].map { [.literal($0)] }
      }
      fileEnvironment[entry.name] = resolved.value
      entries.append(resolved)
    }
    for param in file.params {
      guard let value = rootValues[param.name] else { continue }
      let fromCommandLine = invocation.params.contains { $0.name == param.name }
      entries.append(
        EnvironmentEntry(
          name: param.name, value: Template(parts: [.literal(value)]), location: param.location,
          origin: fromCommandLine ? .commandLine : .param))
    }
    return entries
  }

  /// The entries of `.env` files, later files over earlier ones; `${NAME}` reads runner's
  /// environment, then the entries before it.
  private mutating func dotEnv(_ references: [DotEnvReference], directory: String) -> [EnvironmentEntry] {
    var result: [EnvironmentEntry] = []
    var known = fileDotEnv
    for reference in references {
      let path = reference.path.hasPrefix("/") ? reference.path : directory + "/" + reference.path
      let entries: [EnvironmentEntry]
      if let cached = dotEnvCache[path] {
        entries = cached
      } else {
        entries = readDotEnv(reference, path: path)
        dotEnvCache[path] = entries
      }
      for entry in entries {
        let value = entry.value.resolving { part in
          guard case .variable(let name) = part else { return [] }
          return [.literal(environment[name] ?? known[name] ?? "")]
        }
        known[entry.name] = value.render { _, _ in nil }
        result.append(EnvironmentEntry(name: entry.name, value: value, location: entry.location, origin: .dotenv))
      }
    }
    return result
  }

  private mutating func readDotEnv(_ reference: DotEnvReference, path: String) -> [EnvironmentEntry] {
    otherFiles.append(path)
    let bytes: [UInt8]
    do {
      bytes = try FileReader.read(path)
    } catch {
      if case .fileNotFound = error {
        if reference.isOptional { return [] }
        diagnostics.append(
          Diagnostic(
            .error,
            "dotenv file '\(reference.path)' not found (mark it optional: { path: \(reference.path), optional: true })",
            at: reference.location))
        return []
      }
      diagnostics.append(Diagnostic(.error, "dotenv file '\(reference.path)': \(error)", at: reference.location))
      return []
    }
    let shown = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
    do {
      return try DotEnvParser.parse(String(decoding: bytes, as: UTF8.self)).map { entry in
        let parts: [Template.Part] = entry.value.parts.map {
          switch $0 {
          case .literal(let text): return .literal(text)
          case .variable(let name): return .variable(name)
          }
        }
        return EnvironmentEntry(
          name: entry.name, value: Template(parts: parts),
          location: SourceLocation(file: shown, line: entry.line, column: 1),
          origin: .dotenv)
      }
    } catch {
      diagnostics.append(
        Diagnostic(.error, error.message, at: SourceLocation(file: shown, line: error.line, column: error.column)))
      return []
    }
  }

  // MARK: Nodes

  /// The node for `task` with `values`: made (and queued for its dependencies) the first time.
  private mutating func node(_ task: Int, values: [String: String], combination: Int?) -> Int {
    let definition = file.tasks[task]
    let key = NodeKey(task: task, values: scope[task].map { values[$0] ?? "\u{0}" }, combination: combination ?? -1)
    if let found = memo[key] { return found }
    // Distinct values, not combinations: a large matrix is no runaway `with:`.
    if combination == nil { variants[task, default: 0] += 1 }
    if combination == nil, variants[task, default: 0] > Self.variantLimit {
      if variants[task] == Self.variantLimit + 1 {
        diagnostics.append(
          Diagnostic(
            .error,
            "task '\(definition.name)' has more than \(Self.variantLimit) distinct param values: a 'with:' that "
              + "builds a new value from its own (a cycle through 'with:')?", at: definition.location))
      }
      return memo[NodeKey(task: task, values: scope[task].map { baseline[task][$0] ?? "\u{0}" }, combination: -1)] ?? 0
    }
    var node = definition
    node.taskName = definition.name
    node.index = nodes.count
    var shown: [(String, String)] = []
    var matrixValues: [(String, String)] = []
    if let combination, definition.matrix != nil {
      matrixValues = combinations(of: task)[combination]
      shown = matrixValues
    }
    for name in scope[task] where values[name] != baseline[task][name] {
      shown.append((name, values[name] ?? ""))
    }
    if !shown.isEmpty { node.name += "[" + shown.map { "\($0.0)=\($0.1)" }.joined(separator: ",") + "]" }
    node.values = shown
    memo[key] = node.index
    nodes.append(node)
    nodeValues.append(values)
    if let matrix = definition.matrix, combination == nil {
      // The task's name is the group of its combinations.
      nodes[node.index].action = .group
      for property in [\TaskDefinition.sources, \.outputs] { nodes[node.index][keyPath: property] = [] }
      nodes[node.index].environment = []
      nodes[node.index].condition = nil
      nodes[node.index].dotenv = []
      nodes[node.index].waitFor = []
      nodes[node.index].directory = nil
      var members: [Dependency] = []
      for index in combinations(of: task).indices {
        let combined = self.node(task, values: values, combination: index)
        members.append(Dependency(name: nodes[combined].name, location: matrix.location))
      }
      nodes[node.index].dependencies = members
      return node.index
    }
    prepare(node.index, task: definition, values: values, matrix: matrixValues)
    pending.append(node.index)
    return node.index
  }

  /// A matrix task's combinations, worked out once.
  private mutating func combinations(of task: Int) -> [[(String, String)]] {
    if let known = matrixCombinations[task] { return known }
    let result = file.tasks[task].matrix?.combinations ?? []
    matrixCombinations[task] = result
    return result
  }

  /// Fills in the node's environment, condition and missing params.
  private mutating func prepare(
    _ index: Int, task: TaskDefinition, values: [String: String], matrix: [(String, String)]
  ) {
    var entries: [EnvironmentEntry] = []
    // The included files' layers, outermost first (the root file's are in the base).
    var chain: [Int] = []
    var level = task.scope
    while level != 0, level < file.scopes.count {
      chain.insert(level, at: 0)
      level = file.scopes[level].parent ?? 0
    }
    var taskDotEnv: [EnvironmentEntry] = []
    for level in chain {
      taskDotEnv += dotEnv(file.scopes[level].dotenv, directory: file.scopes[level].fileDirectory)
    }
    if !task.dotenv.isEmpty {
      let directory = task.scope < file.scopes.count ? file.scopes[task.scope].fileDirectory : file.directory
      taskDotEnv += dotEnv(task.dotenv, directory: directory)
    }
    let layerNames = chain.flatMap { file.scopes[$0].environment.map(\.name) }
    let ownNames = Set(task.environment.map(\.name) + scope[task.index] + layerNames)
    var dotEnvValues: [String: String] = [:]
    for entry in taskDotEnv {
      if environment[entry.name] != nil {
        nodes[index].shadowedEnvironment.append(entry)
        // The file names it: runner's value for it counts in the key.
        if !nodes[index].keyEnvironment.contains(entry.name) { nodes[index].keyEnvironment.append(entry.name) }
      } else if fileEnvironment[entry.name] == nil, !ownNames.contains(entry.name) {
        entries.append(entry)
      }
      dotEnvValues[entry.name] = entry.value.render { _, _ in nil }
    }
    var own: [String: Template] = [:]
    var layered: [String: Template] = [:]
    var (fileKnown, inherited, fileDotEnv) = (fileEnvironment, environment, self.fileDotEnv)
    // The environment entries that would hide a param of the same name (params are strongest).
    var ownEnvironmentNames = Set(task.environment.map(\.name) + layerNames)
    // The root file's env read params as the run has them; a node with other values reads its
    // own, in order, and what reads those entries later reads the node's values too.
    if values.contains(where: { name, value in rootValues[name] != nil && rootValues[name] != value }) {
      for entry in file.environment where !entry.value.isResolved {
        var resolved = entry
        let known = fileKnown
        resolved.value = resolve(entry.value, at: entry.location, task: task, values: values, combination: matrix) {
          name in
          values[name].map { [.literal($0)] } ?? known[name].map { $0.parts }
            ?? inherited[name].map { [.literal($0)] } ?? fileDotEnv[name].map { [.literal($0)] }
        }
        fileKnown[entry.name] = resolved.value
        ownEnvironmentNames.insert(entry.name)
        entries.append(resolved)
      }
    }
    let layers = chain.flatMap { file.scopes[$0].environment }
    for (position, entry) in (layers + task.environment).enumerated() {
      var resolved = entry
      let (earlier, outer) = (own, layered)
      let isLayer = position < layers.count
      resolved.value = resolve(entry.value, at: entry.location, task: task, values: values, combination: matrix) {
        name in
        earlier[name].map { $0.parts } ?? values[name].map { [.literal($0)] } ?? outer[name].map { $0.parts }
          ?? fileKnown[name].map { $0.parts } ?? inherited[name].map { [.literal($0)] }
          ?? dotEnvValues[name].map { [.literal($0)] } ?? fileDotEnv[name].map { [.literal($0)] }
      }
      if isLayer { layered[entry.name] = resolved.value } else { own[entry.name] = resolved.value }
      entries.append(resolved)
    }
    for name in scope[task.index] {
      let isOwn = task.params.contains { $0.name == name }
      guard let value = values[name], isOwn || value != rootValues[name] || ownEnvironmentNames.contains(name) else {
        continue
      }
      let declaration =
        task.params.first { $0.name == name } ?? scopeParams[task.scope].first { $0.name == name }
      let fromCommandLine = invocation.params.contains { $0.name == name && $0.value == value }
      entries.append(
        EnvironmentEntry(
          name: name, value: Template(parts: [.literal(value)]), location: declaration?.location ?? task.location,
          origin: fromCommandLine ? .commandLine : .param))
    }
    nodes[index].environment = entries
    if Self.readsValues(task) {
      let fill = { (text: String, this: inout TaskFileExpander) -> String in
        guard Template.containsExpression(text), let template = try? Template.parse(text) else { return text }
        return this.resolve(template, at: task.location, task: task, values: values, combination: matrix) { _ in nil }
          .render { _, _ in nil }
      }
      nodes[index].directory = task.directory.map { written in
        let filled = fill(written, &self)
        guard Template.containsExpression(written), task.scope != 0, task.scope < file.scopes.count,
          !filled.hasPrefix("/")
        else { return filled }
        return IncludeResolver.join(file.scopes[task.scope].relativeDirectory, filled)
      }
      nodes[index].sources = task.sources.map { fill($0, &self) }
      nodes[index].outputs = task.outputs.map { fill($0, &self) }
    }
    // Required params without a value: an error only if the node is run (`--list` still works).
    nodes[index].missingParams =
      (scopeParams[task.scope].filter { param in !task.params.contains { $0.name == param.name } }
      + task.params).filter { $0.isRequired && values[$0.name] == nil }
    if case .expression(let expression) = task.condition {
      var unknown: [String] = []
      nodes[index].condition = .expression(
        expression.substituting { reference in
          switch reference {
          case .param(let name):
            if values[name] == nil, !scope[task.index].contains(name) { unknown.append("params.\(name)") }
            return values[name] ?? ""
          case .matrix(let name):
            let axes = task.matrix.map { $0.axes.map(\.name) + $0.include.flatMap { $0.map(\.0) } } ?? []
            if !axes.contains(name) { unknown.append("matrix.\(name)") }
            return matrix.first { $0.0 == name }?.1 ?? ""
          case .runner(let name): return name == "os" ? RunnerPlatform.os : RunnerPlatform.arch
          case .output, .env: return nil
          }
        })
      for name in unknown
      where !diagnostics.contains(where: { $0.location == task.location && $0.message.contains(name) }) {
        diagnostics.append(
          Diagnostic(.error, "the 'if' of task '\(task.name)' reads \(name), which it does not have", at: task.location)
        )
      }
    }
  }

  /// `template` with params, matrix values, `runner.*` and `${NAME}` filled in.
  private mutating func resolve(
    _ template: Template, at location: SourceLocation, task: TaskDefinition?, values: [String: String],
    combination: [(String, String)], variable: (String) -> [Template.Part]?
  ) -> Template {
    if template.isResolved { return template }
    var problems: [String] = []
    let names = task.map { scope[$0.index] } ?? file.params.map(\.name)
    let result = template.resolving { part in
      switch part {
      case .param(let name):
        if let value = values[name] { return [.literal(value)] }
        if names.contains(name) { return [] }
        problems.append(
          "reads params.\(name), which is not a param of \(task.map { "task '\($0.name)'" } ?? "the file")")
        return []
      case .matrix(let name):
        if let value = combination.first(where: { $0.0 == name })?.1 { return [.literal(value)] }
        if let matrix = task?.matrix,
          matrix.axes.contains(where: { $0.name == name })
            || matrix.include.contains(where: { entry in entry.contains { $0.0 == name } })
        {
          return []
        }
        problems.append("reads matrix.\(name), which is not an axis of \(task.map { "task '\($0.name)'" } ?? "a task")")
        return []
      case .runner(let name): return [.literal(name == "os" ? RunnerPlatform.os : RunnerPlatform.arch)]
      case .variable(let name): return variable(name) ?? []
      case .literal, .output: return [part]
      }
    }
    for problem in problems where !diagnostics.contains(where: { $0.message == problem && $0.location == location }) {
      diagnostics.append(Diagnostic(.error, problem, at: location))
    }
    return result
  }

  /// Resolves a node's `deps` to nodes, and points its output references at them.
  private mutating func resolveDependencies(of index: Int) {
    let values = nodeValues[index]
    guard let taskName = nodes[index].taskName, let task = taskIndex[taskName] else { return }
    let written = file.tasks[task].dependencies
    var resolved: [Dependency] = []
    var renamed: [String: String] = [:]
    for dependency in written {
      guard let node = target(of: dependency, from: index, task: task, values: values) else {
        resolved.append(Dependency(name: dependency.name, location: dependency.location))
        continue
      }
      if renamed[dependency.name] == nil { renamed[dependency.name] = nodes[node].name }
      resolved.append(Dependency(name: nodes[node].name, location: dependency.location))
    }
    nodes[index].dependencies = resolved
    if renamed.contains(where: { $0.key != $0.value }) {
      for position in nodes[index].environment.indices {
        nodes[index].environment[position].value.parts = nodes[index].environment[position].value.parts.map {
          guard case .output(let task, let key) = $0, let name = renamed[task] else { return $0 }
          return .output(task: name, key: key)
        }
      }
      if case .expression(let expression) = nodes[index].condition {
        nodes[index].condition = .expression(
          expression.renamingOutputs { renamed[$0] ?? $0 })
      }
    }
    // After the renaming: every part reads its dependencies' outputs under their node names.
    splitAtCalls(index, task: task, values: values)
  }

  /// The node a `deps` entry or a task call of node `index` names, with the values it passes
  /// (the file params that differ in `index`, then `with:`); nil when no task has that name.
  private mutating func target(of dependency: Dependency, from index: Int, task: Int, values: [String: String])
    -> Int?
  {
    let written = dependency.name.hasPrefix(":") ? String(dependency.name.dropFirst()) : dependency.name
    guard let target = taskIndex[written] else { return nil }
    var targetValues = baseline[target]
    let ownParams = Set(file.tasks[target].params.map(\.name))
    // A file param the caller has another value for (set by `with:` or the command line)
    // flows on, if it is the same file's param (not the caller's own task param of that name).
    let callerDefaults = scopeValues[file.tasks[task].scope]
    let callerOwn = Set(file.tasks[task].params.map(\.name))
    for name in scope[target]
    where !ownParams.contains(name) && !callerOwn.contains(name) && values[name] != callerDefaults[name] {
      let declaration = scopeParams[file.tasks[target].scope].first { $0.name == name }
      if let value = values[name], let declaration, !declaration.choices.isEmpty, !declaration.choices.contains(value) {
        continue
      }
      targetValues[name] = values[name]
    }
    for given in dependency.with {
      guard scope[target].contains(given.name) else {
        let known = scope[target]
        diagnostics.append(
          Diagnostic(
            .error,
            "task '\(dependency.name)' has no param '\(given.name)'"
              + (Suggestion.closest(to: given.name, in: known).map { " (did you mean '\($0)'?)" }
                ?? (known.isEmpty ? "" : " (its params: \(known.joined(separator: ", ")))")),
            at: given.location))
        continue
      }
      let axes = file.tasks[task].matrix?.axes.map(\.name) ?? []
      let combination = nodes[index].values.filter { axes.contains($0.0) }
      // A value read from a param that has none leaves this one without a value too.
      let readsMissing = given.value.parts.contains { part in
        if case .param(let name) = part { return values[name] == nil }
        return false
      }
      if readsMissing {
        targetValues[given.name] = nil
        continue
      }
      let value = resolve(
        given.value, at: given.location, task: file.tasks[task], values: values, combination: combination
      ) { _ in nil }.render { _, _ in nil }
      let declaration =
        file.tasks[target].params.first { $0.name == given.name }
        ?? scopeParams[file.tasks[target].scope].first { $0.name == given.name }
      if let declaration, !check(value, of: declaration, at: given.location) { continue }
      targetValues[given.name] = value
    }
    return node(target, values: targetValues, combination: nil)
  }

  /// A `run` list with task calls becomes a chain: `deploy#1` runs the commands before the first
  /// call, `deploy#2` runs after it and the called node, …, and `deploy` itself runs the
  /// commands after the last call. Each part is a node, so a waiting part holds no slot. The
  /// called node gets no edge from the calling task: running it alone (`runner build`) must
  /// not run a caller's commands, so it runs as soon as its own dependencies allow.
  private mutating func splitAtCalls(_ index: Int, task: Int, values: [String: String]) {
    guard case .shell(let commands) = nodes[index].action, commands.contains(where: { $0.call != nil }) else { return }
    if !nodes[index].sources.isEmpty || !nodes[index].outputs.isEmpty || nodes[index].condition != nil {
      diagnostics.append(
        Diagnostic(
          .error,
          "task '\(file.tasks[task].name)' calls other tasks, so it cannot have 'sources', 'outputs' or 'if' "
            + "(put them on the tasks it calls)", at: nodes[index].location))
      return
    }
    let whole = nodes[index]
    let own = whole.dependencies
    var dependencies = own
    var pending: [Command] = []
    var part = 0
    for command in commands {
      guard let call = command.call else {
        pending.append(command)
        continue
      }
      part += 1
      var segment = whole
      segment.name = whole.name + "#\(part)"
      segment.index = nodes.count
      segment.action = pending.isEmpty ? .group : .shell(pending)
      segment.dependencies = dependencies
      segment.arguments = whole.arguments
      nodes.append(segment)
      nodeValues.append(values)
      pending = []
      guard let called = target(of: call, from: index, task: task, values: values) else {
        let names = file.tasks.lazy.map(\.name)
        diagnostics.append(
          .error(
            .undefinedDependency(
              task: whole.name, dependency: call.name, suggestion: Suggestion.closest(to: call.name, in: names)),
            at: call.location))
        return
      }
      // Each part keeps the task's own deps (done already), so its env may read their outputs.
      dependencies =
        own.filter { $0.name != nodes[called].name } + [
          Dependency(name: segment.name, location: call.location),
          Dependency(name: nodes[called].name, location: call.location),
        ]
    }
    nodes[index].action = pending.isEmpty ? .group : .shell(pending)
    nodes[index].dependencies = dependencies
    nodes[index].writtenRun = commands
  }

  /// `deploy#2` is a part of `deploy` split at its task calls.
  static func isPart(_ name: String, of target: String) -> Bool {
    name.hasPrefix(target + "#") && name.dropFirst(target.count + 1).allSatisfy(\.isNumber)
  }

  /// The words after `--` go to the targets' nodes (and a matrix target's combinations).
  private mutating func giveArguments() {
    guard !invocation.arguments.isEmpty else { return }
    var byName: [String: Int] = [:]
    for node in nodes { byName[node.name] = node.index }
    var written = invocation.targets.map { $0.hasPrefix(":") ? String($0.dropFirst()) : $0 }
    if written.isEmpty {
      written = file.defaultTargets.map(\.name)
      if written.isEmpty, byName["default"] != nil { written = ["default"] }
    }
    // The nodes the targets name (`test[py=3.12]` too), an include's default's tasks, a matrix
    // group's combinations; then each of those and its parts (`release#1`).
    var wanted = Set<String>()
    for target in written {
      let matched =
        TargetPattern.isPattern(target)
        ? nodes.filter { !$0.name.contains("#") && TargetPattern.matches(target, $0.name) }.map(\.index)
        : byName[target].map { [$0] } ?? []
      for index in matched {
        let node = nodes[index]
        wanted.insert(node.name)
        let isIncludeDefault =
          node.scope != 0 && node.scope < file.scopes.count && file.scopes[node.scope].namespace == node.name
        let isMatrixGroup: Bool
        if case .group = node.action, node.matrix != nil, node.taskName != nil {
          isMatrixGroup = true
        } else {
          isMatrixGroup = false
        }
        if isIncludeDefault || isMatrixGroup { wanted.formUnion(node.dependencies.map(\.name)) }
      }
    }
    for index in nodes.indices {
      let name = nodes[index].name
      let whole = name.lastIndex(of: "#").map { String(name[..<$0]) }
      if wanted.contains(name) || (whole.map { Self.isPart(name, of: $0) && wanted.contains($0) } ?? false) {
        nodes[index].arguments = invocation.arguments
      }
    }
  }

  /// The tasks the command line names, as selection reads them: `:name` is the root file's,
  /// a pattern all it matches, an include's namespace its default tasks; none named, the
  /// file's `default` (or its task named `default`).
  private func targetTasks() -> [Int] {
    var written = invocation.targets.map { $0.hasPrefix(":") ? String($0.dropFirst()) : $0 }
    if written.isEmpty {
      written = file.defaultTargets.map(\.name)
      if written.isEmpty, taskIndex["default"] != nil { written = ["default"] }
    }
    var result: [Int] = []
    for target in written {
      let matched =
        TargetPattern.isPattern(target)
        ? file.tasks.filter { TargetPattern.matches(target, $0.name) }.map(\.index)
        : taskIndex[target].map { [$0] } ?? []
      for index in matched {
        let task = file.tasks[index]
        let isIncludeDefault =
          task.scope != 0 && task.scope < file.scopes.count && file.scopes[task.scope].namespace == task.name
        if isIncludeDefault {
          result += task.dependencies.compactMap { taskIndex[$0.name] }
        } else {
          result.append(index)
        }
      }
    }
    return result
  }
}

extension ConditionExpression {
  /// The same expression with each output reference's task renamed.
  func renamingOutputs(_ rename: (String) -> String) -> ConditionExpression {
    switch self {
    case .literal: return self
    case .reference(.output(let task, let key)): return .reference(.output(task: rename(task), key: key))
    case .reference: return self
    case .equal(let a, let b): return .equal(a.renamingOutputs(rename), b.renamingOutputs(rename))
    case .notEqual(let a, let b): return .notEqual(a.renamingOutputs(rename), b.renamingOutputs(rename))
    case .and(let a, let b): return .and(a.renamingOutputs(rename), b.renamingOutputs(rename))
    case .or(let a, let b): return .or(a.renamingOutputs(rename), b.renamingOutputs(rename))
    case .not(let a): return .not(a.renamingOutputs(rename))
    }
  }
}
