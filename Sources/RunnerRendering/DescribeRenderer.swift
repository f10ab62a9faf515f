import RunnerBasics
import RunnerModel

/// `--describe NAME`: one task in full — what it runs, its edges both ways, every setting,
/// and where it is defined.
package struct DescribeRenderer: Sendable {
  /// Secret values, shown as `***` in the environment this prints.
  let secrets: SecretMask

  package init(secrets: SecretMask = .none) { self.secrets = secrets }

  /// What the task's patterns and depfile name on disk, which the model alone cannot say.
  package struct Files: Sendable {
    /// The files its `sources` match now, relative to its directory.
    package var matched: [String]
    /// The files its depfile named, or (`sources: auto`) it was seen to read, in its last
    /// run; nil before one.
    package var read: [String]?

    package init(matched: [String], read: [String]?) {
      self.matched = matched
      self.read = read
    }
  }

  /// The most files a row lists before it says how many more there are.
  static let listedFiles = 100

  package func render(_ index: Int, in graph: TaskGraph, files: Files? = nil) -> String {
    let task = graph[index]
    var rows: [(String, [String])] = [("kind", [task.action.kindName])]
    switch task.action {
    case _ where !task.writtenRun.isEmpty:
      // A task split at its calls: the whole list as written, each call with its values.
      rows.append(("run", task.writtenRun.map { $0.call.map(Self.describe) ?? "$ " + $0.text }))
    case .group: break
    case .shell(let commands): rows.append(("run", commands.map { "$ " + $0.text }))
    case .image(let steps):
      var lines = steps.map(\.summary)
      if let input = graph.imageInput(of: index) { lines.insert("(image from \(graph[input].name))", at: 0) }
      rows.append(("image", lines))
    }
    let names = { (indices: Adjacency.Edges) in [indices.map { graph[$0].name }.joined(separator: ", ")] }
    if !graph.dependencies[index].isEmpty { rows.append(("deps", names(graph.dependencies[index]))) }
    if !graph.dependents[index].isEmpty { rows.append(("dependents", names(graph.dependents[index]))) }
    if let directory = task.directory { rows.append(("dir", [directory])) }
    if !task.values.isEmpty { rows.append(("values", [task.values.map { "\($0.0)=\($0.1)" }.joined(separator: ", ")])) }
    let params = graph.file.params(of: task)
    if !params.isEmpty { rows.append(("params", params.map(Self.describe))) }
    if let matrix = task.matrix, task.values.isEmpty {
      rows.append(("matrix", matrix.axes.map { "\($0.name): \($0.values.joined(separator: ", "))" }))
    }
    // A task split at its calls keeps its `if:` and preconditions on its first part.
    let first = task.writtenRun.isEmpty ? nil : graph.index(of: task.name + "#1").map { graph[$0] }
    if let condition = task.condition ?? first?.condition { rows.append(("if", [condition.description])) }
    let preconditions = task.preconditions.isEmpty ? first?.preconditions ?? [] : task.preconditions
    if !preconditions.isEmpty {
      rows.append(("preconditions", preconditions.map { "$ \($0.command)" + ($0.message.map { " (\($0))" } ?? "") }))
    }
    if let shell = task.shell { rows.append(("shell", [shell.joined(separator: " ")])) }
    if !task.arguments.isEmpty { rows.append(("arguments", [task.arguments.joined(separator: " ")])) }
    let environment = environment(of: task, in: graph)
    if !environment.isEmpty { rows.append(("env", environment)) }
    if task.priority != 0 { rows.append(("priority", [String(task.priority)])) }
    if let timeout = task.timeout { rows.append(("timeout", [formatDuration(timeout)])) }
    if task.retries > 0 { rows.append(("retries", [String(task.retries)])) }
    if task.always { rows.append(("always", ["yes: a cleanup, run once its deps have ended, whatever their outcome"])) }
    if task.isService {
      rows.append(("service", ["yes: ready when its gates pass after it starts, stopped when nothing needs it"]))
    }
    // A task with calls decided as one checks its sources, and its calls', on its first part.
    let sources = task.sources.isEmpty ? first?.sources ?? [] : task.sources
    if !sources.isEmpty { rows.append(("sources", sources)) }
    if let files, !sources.isEmpty {
      rows.append(("matches", files.matched.isEmpty ? ["(no file)"] : Self.listed(files.matched)))
    }
    if let depfile = task.depfile { rows.append(("depfile", [depfile])) }
    if task.sourcesAuto { rows.append(("sources", ["auto: what its last run was seen to read"])) }
    if task.depfile != nil || task.sourcesAuto, let files {
      rows.append(("read", files.read.map { $0.isEmpty ? ["(no file)"] : Self.listed($0) } ?? ["(not read yet)"]))
    }
    if !task.outputs.isEmpty { rows.append(("outputs", task.outputs)) }
    if task.sandboxStrict {
      rows.append(("sandbox", ["strict: reads of the project only its sources and deps' outputs, writes its outputs"]))
    }
    if !task.waitFor.isEmpty {
      rows.append(
        (
          "wait_for",
          task.waitFor.map { "\($0) (\($0.timeout.map { "timeout " + formatDuration($0) } ?? "no timeout"))" }
        ))
    }
    if !task.resources.isEmpty { rows.append(("resources", [task.resources.joined(separator: ", ")])) }
    if task.jobserver != .automatic { rows.append(("jobserver", [task.jobserver.rawValue])) }
    var out = "task \(task.name) (\(task.location))\n"
    if let description = task.description { out += "  \(description)\n" }
    let width = rows.map(\.0.count).max() ?? 0
    for (label, lines) in rows {
      for (position, line) in lines.enumerated() {
        let head = position == 0 ? label + ":" : ""
        out += "  " + head + String(repeating: " ", count: width + 2 - head.count) + line + "\n"
      }
    }
    return out
  }

  /// `files`, the first `listedFiles` of them and how many more.
  static func listed(_ files: [String]) -> [String] {
    guard files.count > listedFiles else { return files }
    return files.prefix(listedFiles) + ["(and \(files.count - listedFiles) more)"]
  }

  static func describe(_ call: Dependency) -> String {
    let values = call.with.map { "\($0.name)=\($0.value)" }.joined(separator: ", ")
    return "→ task \(call.name)" + (values.isEmpty ? "" : " with \(values)")
  }

  static func describe(_ param: ParamDeclaration) -> String {
    var text = param.name
    if let value = param.defaultValue { text += " (default \(value))" }
    if param.isRequired { text += " (required)" }
    if !param.choices.isEmpty { text += " one of: \(param.choices.joined(separator: ", "))" }
    if let description = param.description { text += " — \(description)" }
    return text
  }

  /// Every variable the file and the task set, the winner for each name with where it comes
  /// from, then the `.env` values runner's environment overrides.
  func environment(of task: TaskDefinition, in graph: TaskGraph) -> [String] {
    var winners: [String: EnvironmentEntry] = [:]
    for entry in graph.file.environment + task.environment { winners[entry.name] = entry }
    var lines = winners.keys.sorted().compactMap { name -> String? in
      guard let entry = winners[name] else { return nil }
      let origin: String
      switch entry.origin {
      case .env: origin = "\(entry.location) (env)"
      case .dotenv: origin = "\(entry.location.file):\(entry.location.line) (dotenv)"
      case .param: origin = "\(entry.location) (param)"
      case .commandLine: origin = "(the command line)"
      case .unset: return "\(name) unset  \(entry.location) (env: null)"
      }
      return "\(name)=\(secrets.masking(entry.value.description))  \(origin)"
    }
    for entry in graph.file.shadowedEnvironment + task.shadowedEnvironment {
      lines.append(
        "\(entry.name): \(entry.location.file):\(entry.location.line) not used: runner's environment sets it")
    }
    if !lines.isEmpty { lines.append("(and runner's own environment under these)") }
    return lines
  }
}
