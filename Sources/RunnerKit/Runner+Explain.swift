import RunnerBasics
import RunnerCache
import RunnerExecution
import RunnerModel

extension Runner {
  /// `runner --explain TASK`: why the task ran (or was restored) the last time it did, what a
  /// run would do with it now and why, and what makes it run again.
  public func explain(_ name: String) async -> Answer {
    var answer = newAnswer()
    guard let caching = cacheSettings(&answer), let graph = loadGraph(&answer) else { return answer.failing() }
    let selection: GraphSelection
    do {
      selection = try GraphSelection(graph: graph, targetNames: [name])
    } catch {
      answer.report(error.diagnostics)
      return answer.failing()
    }
    guard let index = graph.index(of: name) ?? selection.targets.first else { return answer.failing() }
    // A task with calls decided as one is decided, and recorded, by its first part.
    let deciding = graph[index].wholeTask.flatMap { graph.index(of: $0.firstPart) } ?? index
    let store = IncrementalPlanner.store(
      for: graph, settings: caching, environment: RunSession.environment(of: graph), images: PNGPixels())
    let prediction = IncrementalPlanner(selection: selection, store: store).predict()[deciding]
    answer.report(store.warnings.map { Diagnostic(.warning, $0) })
    let masked = Self.secrets(of: graph)
    let text = Self.explanation(
      of: graph[deciding], shownAs: graph[index], record: store.record(graph[deciding].name), now: prediction,
      dependencies: graph.dependencies[deciding].map { graph[$0].name },
      variables: Fingerprint.keyedVariables(of: graph.file), secrets: Set(graph.file.secretNames))
    answer.say(masked.masking(text))
    return answer
  }

  static func explanation(
    of task: TaskDefinition, shownAs shown: TaskDefinition, record: TaskRecord?, now: CachePrediction?,
    dependencies: [String], variables keyed: Set<String>, secrets: Set<String>
  ) -> String {
    var out = "\(shown.name) (\(shown.location))\n"
    if case .group = task.action {
      return out + "  a group: it runs nothing itself, and is done when its dependencies are\n"
    }
    guard task.isCacheable else {
      if case .image = task.action { return out + "  it loads a URL: it runs every time a run selects it\n" }
      return out + "  no sources: it runs every time a run selects it (with `sources`, runner skips it while they"
        + " and its command are unchanged)\n"
    }
    if let record, let outcome = record.outcome {
      out += "  last recorded: it \(outcome.words)" + (record.why.isEmpty ? "" : ", because \(record.why)") + "\n"
    } else if record?.fingerprint != nil {
      out += "  last recorded: a run by an older runner, which kept no reason\n"
    } else {
      out +=
        "  last recorded: nothing (it never ran here, its last run failed, or the state was discarded or cleaned)\n"
    }
    out += "  now: \(now?.summary ?? "would run")\n"
    var causes = ["its command or directory changes"]
    if task.wholeTask != nil { causes[0] = "its commands, or those of a task it calls, change" }
    let variables = keyed.union(task.keyEnvironment).union(task.environment.map(\.name))
      .subtracting(task.secretNames).subtracting(secrets).sorted()
    causes.append(
      variables.count == 1
        ? "the variable \(variables[0]) changes" : "one of the variables \(variables.joined(separator: ", ")) changes")
    let sources = record?.sources.count ?? 0
    let patterns = Fingerprint.sourcePatterns(of: task)
    if !patterns.isEmpty {
      causes.append(
        "a file matching \(patterns.joined(separator: ", ")) changes, appears or goes (\(sources) recorded)")
    }
    if let depfile = task.depfile {
      if let read = record?.discovered {
        causes.append("a file its depfile \(depfile) named last time changes or goes (\(read.count) recorded)")
      } else {
        causes.append("its depfile \(depfile) has not been read: it runs to write one")
      }
    }
    if !dependencies.isEmpty {
      let names = dependencies.map { "'\($0)'" }.joined(separator: ", ")
      causes.append(
        dependencies.count == 1 ? "what \(names) hands on changes" : "what one of \(names) hands on changes")
    }
    let outputs = task.wholeTask?.outputs ?? task.outputs
    if !outputs.isEmpty { causes.append("\(outputs.joined(separator: ", ")) is changed or removed") }
    causes.append("--force")
    return out + "  it runs again when " + causes.joined(separator: "; ") + "\n"
  }
}
