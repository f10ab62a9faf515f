import RunnerBasics

/// A task with `sources` split at its calls is decided as one (`WholeTask`): its first part's
/// key covers the whole `run` list and every task its calls reach, and the sources of those
/// tasks join its own, so an edit anywhere below a call makes the whole task run again.
extension TaskFileExpander {
  /// Fills each deciding first part's key, source groups and keyed variables, once every node
  /// is made.
  mutating func keyWholeTasks() {
    let firsts = nodes.indices.filter { nodes[$0].wholeTask != nil && !nodes[$0].laterParts.isEmpty }
    guard !firsts.isEmpty else { return }
    var byName: [String: Int] = [:]
    for node in nodes.indices { byName[nodes[node].name] = node }
    for first in firsts {
      guard let whole = nodes[first].wholeTask, let last = byName[whole.name] else { continue }
      let parts = Set(nodes[first].laterParts.compactMap { byName[$0] } + [first])
      var key: [String] = []
      for command in nodes[last].writtenRun {
        guard let call = command.call else {
          key.append("run " + command.text)
          continue
        }
        key.append("call " + call.name + call.with.map { " \($0.name)=\($0.value)" }.joined())
      }
      // What the calls reach: the called nodes and everything they need, but not the task's own parts.
      var reached = Set<Int>()
      var work = parts.flatMap { nodes[$0].calledWhenEnded.compactMap { byName[$0] } }
      while let next = work.popLast() {
        guard !parts.contains(next), reached.insert(next).inserted else { continue }
        work.append(contentsOf: nodes[next].dependencies.compactMap { byName[$0.name] })
      }
      let directory = nodes[first].directory ?? "."
      let ordered = reached.sorted { nodes[$0].name < nodes[$1].name }
      // A file the task or a reached task writes is covered by the key of what writes it: as a
      // source it would be hashed before the run and found changed after every run.
      var writes = whole.outputs
      for node in ordered {
        let from = nodes[node].directory ?? "."
        writes += Self.writtenPaths(of: nodes[node]).map { rebase($0, from: from, to: directory) }
      }
      let excluded = writes.map { "!" + $0 }
      var groups = [nodes[first].sources + excluded]
      var sources = nodes[first].sources
      var keyed = nodes[first].keyEnvironment
      for node in ordered {
        key.append(contentsOf: definition(of: nodes[node]))
        let from = nodes[node].directory ?? "."
        let read = Self.readPaths(of: nodes[node]).map { rebase($0, from: from, to: directory) }
        if !read.isEmpty {
          groups.append(read + excluded)
          sources += read.filter { !sources.contains($0) }
        }
        keyed += nodes[node].keyEnvironment.filter { !keyed.contains($0) }
      }
      nodes[first].wholeTask?.key = key
      nodes[first].wholeTask?.sourceGroups = groups
      nodes[first].sources = sources
      nodes[first].keyEnvironment = keyed
    }
  }

  /// What stands for a reached task in the key: what it runs, where, with what, from which
  /// files. Secret and `.env` values stay out (as they stay out of every key), by name only.
  func definition(of node: TaskDefinition) -> [String] {
    var lines = ["task " + node.name, "dir " + (node.directory ?? ".")]
    switch node.action {
    case .group: lines.append("group")
    case .shell(let commands): lines += commands.map { ($0.ignoresError ? "run? " : "run ") + $0.text }
    case .image(let steps): lines += steps.map { "image " + String(describing: $0.kind) }
    }
    let secrets = Set(file.secretNames + node.secretNames)
    for entry in node.environment {
      switch entry.origin {
      case _ where secrets.contains(entry.name): lines.append("secret \(entry.name)")
      case .dotenv: lines.append("dotenv \(entry.name)")
      case .unset: lines.append("unset \(entry.name)")
      case .env, .param, .commandLine: lines.append("env \(entry.name)=\(entry.value)")
      }
    }
    lines += node.sources.map { "sources " + $0 }
    lines += node.outputs.map { "outputs " + $0 }
    if let shell = node.shell { lines.append("shell " + shell.joined(separator: " ")) }
    return lines
  }

  /// The files a task reads as its key's sources: its `sources`, and the files its image steps load.
  static func readPaths(of node: TaskDefinition) -> [String] {
    var paths = node.sources
    if case .image(let steps) = node.action {
      for step in steps { if case .load(.path(let path), _) = step.kind { paths.append(path) } }
    }
    return paths
  }

  /// The files a task writes: its `outputs`, and the files its image steps save.
  static func writtenPaths(of node: TaskDefinition) -> [String] {
    var paths = node.outputs
    if case .image(let steps) = node.action {
      for step in steps { if case .save(let path, _) = step.kind { paths.append(path) } }
    }
    return paths
  }

  /// A path pattern of a task in directory `from` as seen from directory `to` (both relative
  /// to the root file's directory, or absolute); a `!` exclusion stays one.
  func rebase(_ pattern: String, from: String, to: String) -> String {
    if pattern.hasPrefix("!") { return "!" + rebase(String(pattern.dropFirst()), from: from, to: to) }
    guard !pattern.hasPrefix("/"), from != to else { return pattern }
    let absolute = { (directory: String) -> [Substring] in
      var parts: [Substring] = []
      let full = FilePath.resolve(directory, in: rootDirectory)
      for part in full.split(separator: "/") where part != "." {
        if part == ".." { _ = parts.popLast() } else { parts.append(part) }
      }
      return parts
    }
    let source = absolute(from)
    let target = absolute(to)
    var common = 0
    while common < source.count, common < target.count, source[common] == target[common] { common += 1 }
    let way = Array(repeating: "..", count: target.count - common) + source[common...].map(String.init)
    return way.isEmpty ? pattern : way.joined(separator: "/") + "/" + pattern
  }
}
