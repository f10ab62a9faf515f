import Glibc
import RunnerBasics

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

  var nodes: [TaskDefinition] = []
  var nodeValues: [[String: String]] = []
  var memo: [NodeKey: Int] = [:]
  var pending: [Int] = []
  var taskIndex: [String: Int] = [:]
  /// Per task: its param names (the file's, then its own).
  var scope: [[String]] = []
  var baseline: [[String: String]] = []
  var rootValues: [String: String] = [:]
  /// Per scope (0: the root file): the params its tasks see, and their values.
  var scopeParams: [[ParamDeclaration]] = []
  var scopeValues: [[String: String]] = []
  /// Per scope, the params the command line or the include's `with:` set: a dependency's
  /// `with:` does not recompute them from their defaults.
  var scopeFixed: [Set<String>] = []
  var fileEnvironment: [String: Template] = [:]
  var fileDotEnv: [String: String] = [:]
  /// The file's `.env` names whose files override runner's environment.
  var fileOverrides: Set<String> = []
  /// Runner's environment with the overriding `.env` files of the file applied: what `${NAME}`
  /// reads after the files' `env`.
  var inheritedEnvironment: [String: String]
  /// What a param's `sh:` default sees besides runner's environment and the params before it:
  /// the file's `.env` values and, for a task's params, the root file's `env`.
  var commandEnvironment: [String: String] = [:]
  var dotEnvCache: [String: [EnvironmentEntry]] = [:]
  var otherFiles: [String] = []
  var shadowed: [EnvironmentEntry] = []
  /// Nodes made per task: a bound on expansion (a `with:` that grows its own value never ends).
  var variants: [Int: Int] = [:]
  /// The nodes' `deps` and `run`, packed as the decoder packs them (`PackedList`).
  var dependencyPacker = PackedList<Dependency>.Packer()
  var commandPacker = PackedList<Command>.Packer()
  static let variantLimit = 10_000
  var matrixCombinations: [Int: [[(String, String)]]] = [:]
  /// `runner.root` outside paths: the root file's directory, absolute.
  let rootDirectory: String
  /// What each `default: { sh: CMD }` printed, by directory and command: run once per run.
  var commandDefaults: [String: String] = [:]
  /// Runs a param's `sh:` default: its exit status and what it printed.
  var commandOutput: @Sendable (_ command: String, _ directory: String) -> (status: Int32, output: String) =
    LoadTimeShell.shell

  struct NodeKey: Hashable {
    var task: Int
    var values: [String]
    var combination: Int
  }

  init(file: TaskFile, invocation: Invocation, environment: [String: String]) {
    self.file = file
    self.invocation = invocation
    self.environment = environment
    inheritedEnvironment = environment
    rootDirectory = Self.absolute(file.directory)
  }

  /// - Throws: `DiagnosticList` with every problem found.
  mutating func expand() throws(DiagnosticList) -> TaskFile {
    if isPlain {
      // Nothing to expand (the common large file): the tasks are the nodes.
      nodes = file.tasks
      giveArguments()
      var result = file
      result.tasks = nodes
      // The same tasks in the same order (`giveArguments` sets only their arguments).
      result.names = file.names
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
    if !file.dotenv.isEmpty {
      // The file's params' `sh:` defaults see its `.env` values (read once; cached for the base),
      // as the tasks will: a later file runner's environment shadows ends an earlier override.
      for value in dotEnv(file.dotenv, directory: file.directory) {
        if environment[value.entry.name] == nil || value.overrides {
          commandEnvironment[value.entry.name] = value.entry.value.render { _, _ in nil }
        } else {
          commandEnvironment[value.entry.name] = nil
        }
      }
    }
    let overrides = commandLineValues(scopes)
    let base = baseEnvironment()
    for (name, value) in fileEnvironment where value.isResolved && value.references.isEmpty {
      commandEnvironment[name] = value.render { _, _ in nil }
    }
    let fileCommandEnvironment = commandEnvironment
    for task in file.tasks {
      var values = scopeValues[task.scope]
      let directory = task.scope < scopes.count ? scopes[task.scope].fileDirectory : file.directory
      // A task's own `env` of plain text is in its params' `sh:` defaults' environment too, and
      // `${NAME}` in a default reads it.
      if task.params.contains(where: { $0.defaultCommand != nil || $0.defaultValue?.contains("$") == true }) {
        for entry in task.environment where entry.value.isResolved && entry.value.references.isEmpty {
          commandEnvironment[entry.name] = entry.value.render { _, _ in nil }
        }
      }
      for (index, param) in task.params.enumerated() {
        values[param.name] =
          overrides[task.index]?[param.name]
          ?? defaultValue(
            of: param, values: values, directory: directory, before: task.params[..<index].map(\.name))
      }
      commandEnvironment = fileCommandEnvironment
      baseline.append(values)
    }
    for task in file.tasks { _ = node(task.index, values: baseline[task.index], combination: nil) }
    while let next = pending.popLast() { resolveDependencies(of: next) }
    keyWholeTasks()
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
    return file.tasks.indices.allSatisfy { Self.isPlain(file.tasks, at: $0) }
  }

  /// A task the expansion leaves as it is: no params, matrix, `.env`, condition, values to fill in
  /// or calls. Its fields are read one at a time: a whole task passed on is copied (every
  /// reference it holds retained and released), a cost a million tasks feel.
  static func isPlain(_ tasks: [TaskDefinition], at index: Int) -> Bool {
    if tasks[index].setsRareFields {
      let task = tasks[index]
      guard task.params.isEmpty, task.matrix == nil, task.dotenv.isEmpty, task.condition == nil,
        task.waitFor.allSatisfy({ $0.written == nil }), task.depfile.map(Template.containsExpression) != true
      else { return false }
    }
    let directory = tasks[index].directory
    let sources = tasks[index].sources
    let outputs = tasks[index].outputs
    let environment = tasks[index].environment
    let dependencies = tasks[index].dependencies
    let action = tasks[index].action
    guard directory.map(Template.containsExpression) != true,
      !sources.contains(where: Template.containsExpression),
      !outputs.contains(where: Template.containsExpression),
      environment.allSatisfy({ $0.value.isResolved }),
      dependencies.allSatisfy({ $0.with.isEmpty && !$0.name.hasPrefix(":") })
    else { return false }
    if case .shell(let commands) = action, commands.contains(where: { $0.call != nil }) { return false }
    return true
  }

  /// True when the task's `dir`, `sources` or `outputs` read params or matrix values.
  static func readsValues(_ task: TaskDefinition) -> Bool {
    task.directory.map(Template.containsExpression) ?? false
      || task.sources.contains(where: Template.containsExpression)
      || task.outputs.contains(where: Template.containsExpression)
      || task.depfile.map(Template.containsExpression) ?? false
  }

  /// The node for `task` with `values`: made (and queued for its dependencies) the first time.
  mutating func node(_ task: Int, values: [String: String], combination: Int?) -> Int {
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
    if !shown.isEmpty {
      node.name += "[" + shown.map { "\($0.0)=\(Self.nameValue($0.1))" }.joined(separator: ",") + "]"
    }
    node.values = shown
    memo[key] = node.index
    nodes.append(node)
    nodeValues.append(values)
    if let matrix = definition.matrix, combination == nil {
      // The task's name is the group of its combinations.
      nodes[node.index].action = .group
      for property in [\TaskDefinition.sources, \.outputs] { nodes[node.index][keyPath: property] = [] }
      nodes[node.index].depfile = nil
      nodes[node.index].sourcesAuto = false
      nodes[node.index].sandboxStrict = false
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
      nodes[node.index].dependencies = dependencyPacker.pack(members)
      return node.index
    }
    prepare(node.index, task: definition, values: values, matrix: matrixValues)
    pending.append(node.index)
    return node.index
  }

  /// A value as a node's name shows it: as written, or quoted as a JSON string when it holds
  /// what would make two nodes' names one (`,` `]` `=` `"`), a blank or a control character:
  /// `pre[P="a,Q=b"]` is not `pre[P=a,Q=b]`. A late value's expression stays as written.
  static func nameValue(_ value: String) -> String {
    // A value read when the call starts shows its expression, as written.
    if value.hasPrefix("${{"), value.hasSuffix("}}") { return value }
    guard
      value.unicodeScalars.contains(where: {
        ",]=\"\\".unicodeScalars.contains($0) || $0.value <= 0x20 || $0.value == 0x7F
      })
    else { return value }
    var quoted = ""
    JSONValue.escape(value, into: &quoted)
    return quoted
  }

  /// A matrix task's combinations, worked out once.
  mutating func combinations(of task: Int) -> [[(String, String)]] {
    if let known = matrixCombinations[task] { return known }
    let result = file.tasks[task].matrix?.combinations ?? []
    matrixCombinations[task] = result
    return result
  }

  /// `dir`, `sources` and `outputs` with params and matrix values filled in; an included
  /// task's `dir` joined to its file's directory once filled (an absolute one stays).
  /// `runner.root` there is the way up to the root file's directory (`../..`), from the
  /// task's file for `dir`, from the task's directory for `sources` and `outputs`.
  mutating func fillPaths(_ index: Int, task: TaskDefinition, values: [String: String], matrix: [(String, String)]) {
    let fill = { (text: String, from: String?, this: inout TaskFileExpander) -> String in
      guard Template.containsExpression(text), let template = try? Template.parse(text) else { return text }
      let root = Self.wayUp(from: from ?? "", root: this.rootDirectory)
      return this.resolve(template, at: task.location, task: task, values: values, combination: matrix, root: root) {
        _ in nil
      }
      .render { _, _ in nil }
    }
    let fileDirectory = task.scope < file.scopes.count ? file.scopes[task.scope].relativeDirectory : nil
    nodes[index].directory = task.directory.map { written in
      let filled = fill(written, fileDirectory, &self)
      guard Template.containsExpression(written), task.scope != 0, task.scope < file.scopes.count,
        !filled.hasPrefix("/")
      else { return filled }
      return IncludeResolver.join(file.scopes[task.scope].relativeDirectory, filled)
    }
    let taskDirectory = nodes[index].directory ?? fileDirectory
    nodes[index].sources = task.sources.map { fill($0, taskDirectory, &self) }
    nodes[index].outputs = task.outputs.map { fill($0, taskDirectory, &self) }
    nodes[index].depfile = task.depfile.map { fill($0, taskDirectory, &self) }
  }

  /// From `directory` (relative to the root file's, or absolute) back up to it: `.`, `..`,
  /// `../..`; the root directory itself from an absolute one.
  static func wayUp(from directory: String, root: String) -> String {
    guard !directory.hasPrefix("/") else { return root }
    var depth = 0
    for part in directory.split(separator: "/") where part != "." {
      depth += part == ".." ? -1 : 1
      if depth < 0 { return root }
    }
    return depth == 0 ? "." : Array(repeating: "..", count: depth).joined(separator: "/")
  }

  /// The root file's directory as an absolute path: `runner.root` outside paths.
  static func absolute(_ directory: String) -> String {
    if directory.hasPrefix("/") { return directory }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return directory }
    let current = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var parts = current.split(separator: "/").map(String.init)
    for part in directory.split(separator: "/") where part != "." {
      if part == ".." { _ = parts.popLast() } else { parts.append(String(part)) }
    }
    return "/" + parts.joined(separator: "/")
  }

  /// An `if:` expression with the node's params, matrix values and `runner.*` filled in; a
  /// reference the task does not have is an error.
  mutating func substituteCondition(
    _ index: Int, task: TaskDefinition, values: [String: String], matrix: [(String, String)]
  ) {
    guard case .expression(let expression) = task.condition else { return }
    var unknown: [String] = []
    nodes[index].condition = .expression(
      expression.substituting { reference in
        switch reference {
        case .param(let name):
          if values[name] == nil, !scope[task.index].contains(name) { unknown.append("params.\(name)") }
          return values[name] ?? ""
        case .matrix(let name):
          if !(task.matrix?.names.contains(name) ?? false) { unknown.append("matrix.\(name)") }
          return matrix.first { $0.0 == name }?.1 ?? ""
        case .runner(let name): return RunnerPlatform.value(name, root: rootDirectory, arguments: invocation.arguments)
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

  /// `deploy#2` is a part of `deploy` split at its task calls.
  static func isPart(_ name: String, of target: String) -> Bool {
    name.hasPrefix(target + "#") && name.dropFirst(target.count + 1).allSatisfy(\.isNumber)
  }
}
