import RunnerBasics
import RunnerCache
import RunnerModel

/// The dry run: the stages of the selected graph, each task with what it would run.
package struct PlanRenderer: Sendable {
  /// Secret values, shown as `***` in the environment this prints.
  let secrets: SecretMask

  package init(secrets: SecretMask = .none) { self.secrets = secrets }

  /// - Parameter predictions: what a run would do with each task (up to date, restored, …), by index.
  /// - Parameter placements: where each task would run, with a remote executor (`remote on …`,
  ///   `here: why`), by index.
  package func render(
    _ selection: GraphSelection, predictions: [Int: CachePrediction] = [:], placements: [Int: String] = [:]
  ) -> String {
    TextPieces.collect { write(selection, predictions: predictions, placements: placements, to: $0) }
  }

  /// The same text, handed to `emit` in pieces of about 1 MiB (a plan of a million tasks is
  /// never held whole).
  package func write(
    _ selection: GraphSelection, predictions: [Int: CachePrediction] = [:], placements: [Int: String] = [:],
    to emit: (String) -> Void
  ) {
    let graph = selection.graph
    let stages = selection.stages
    // Through the array, not `graph[node]`, whose getter is not always inlined here: a task
    // read whole is copied (every reference it holds retained and released).
    let tasks = graph.tasks
    // Not through a list of the lengths: 8 bytes a task at the plan's peak.
    var width = 0
    for node in selection.members { width = max(width, tasks[node].name.count) }
    let targets = selection.targets.map { graph[$0].name }.joined(separator: ", ")
    var out =
      "plan for \(graph.file.path): \(selection.members.count) task(s) in \(stages.count) stage(s); targets: \(targets)\n"
    for (number, stage) in stages.enumerated() {
      out += "\nstage \(number + 1)\n"
      for node in stage {
        if predictions.isEmpty, placements.isEmpty,
          let command = Self.onlyLine(of: tasks, at: node)
        {
          // Most tasks of a large file: one line, written without the list of lines.
          let name = tasks[node].name
          out += "  "
          out += name
          for _ in name.count..<width { out += " " }
          out += "  $ "
          out += command
          out += "\n"
          TextPieces.flush(&out, to: emit)
          continue
        }
        let task = graph[node]
        let lines =
          describe(task, node: node, graph: graph) + (predictions[node].map { [$0.summary] } ?? [])
          + (placements[node].map { [$0] } ?? [])
        let pad = String(repeating: " ", count: width - task.name.count)
        out += "  \(task.name)\(pad)  \(lines[0])\n"
        for line in lines.dropFirst() {
          out += "  " + String(repeating: " ", count: width) + "  \(line)\n"
        }
        TextPieces.flush(&out, to: emit)
      }
    }
    let path = selection.criticalPath.map { graph[$0].name }
    emit(out + "\ncritical path (\(path.count) task(s)): \(path.joined(separator: " -> "))\n")
  }

  /// The command of a task that runs one line and has nothing else to say (no directory,
  /// environment, condition or other setting `describe` shows); nil for any other. Its fields
  /// are read one at a time: a whole task passed on is copied (every reference it holds
  /// retained and released), a million times in a large plan.
  static func onlyLine(of tasks: [TaskDefinition], at index: Int) -> String? {
    guard !tasks[index].setsRareFields, !tasks[index].isService, !tasks[index].always,
      tasks[index].directory == nil, tasks[index].environment.isEmpty
    else { return nil }
    guard case .shell(let commands) = tasks[index].action, commands.count == 1, !commands[0].text.contains("\n")
    else { return nil }
    return commands[0].text
  }

  func describe(_ task: TaskDefinition, node: Int, graph: TaskGraph) -> [String] {
    var lines: [String]
    switch task.action {
    case .group:
      let deps = task.dependencies.map(\.name).joined(separator: ", ")
      lines = [deps.isEmpty ? "(nothing to do)" : "(group of \(deps))"]
    case .shell(let commands):
      lines = commands.map {
        "$ " + $0.text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n    ")
      }
    case .image(let steps):
      var summary = steps.map(\.summary)
      if let input = graph.imageInput(of: node), case .load(.dependency, _) = steps[0].kind {
        summary[0] = "image from \(graph[input].name)"
      } else if let input = graph.imageInput(of: node) {
        summary.insert("image from \(graph[input].name)", at: 0)
      }
      lines = ["image: " + summary.joined(separator: " -> ")]
    }
    if let directory = task.directory { lines.append("in \(directory)") }
    for entry in task.environment {
      lines.append(
        entry.origin == .unset
          ? "env \(entry.name) unset" : "env \(entry.name)=\(secrets.masking(entry.value.description))")
    }
    // What decides, at its turn, whether and how it runs.
    if task.setsRareFields {
      if let condition = task.condition { lines.append("if \(condition)") }
      for precondition in task.preconditions { lines.append("precondition $ \(precondition.command)") }
      if let prompt = task.prompt { lines.append("prompt: \(prompt)") }
    }
    if task.isService { lines.append("service: kept up while tasks that depend on it run") }
    if task.always { lines.append("always: a cleanup, run whatever its dependencies' outcome") }
    if task.setsRareFields { for gate in task.waitFor { lines.append("waits for \(gate)") } }
    return lines
  }
}
