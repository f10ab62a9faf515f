import RunnerBasics
import RunnerCache
import RunnerModel

/// `--graph json`: the selected graph for machines. Keys keep a fixed order; `format`
/// versions the schema (documented in docs/tasks-file.md).
package struct JSONGraphRenderer: Sendable {
  package static let formatVersion = 1

  package init() {}

  /// - Parameter predictions: what a run would do with each task, by index (the `cache` member).
  package func render(_ selection: GraphSelection, predictions: [Int: CachePrediction] = [:]) -> String {
    value(selection, predictions: predictions).serialized(pretty: true) + "\n"
  }

  package func value(_ selection: GraphSelection, predictions: [Int: CachePrediction] = [:]) -> JSONValue {
    let graph = selection.graph
    let names = { (nodes: [Int]) in JSONValue.array(nodes.map { .string(graph[$0].name) }) }
    let tasks = selection.members.map { node -> JSONValue in
      let task = graph[node]
      var members: [(String, JSONValue)] = [
        ("name", .string(task.name)),
        ("kind", .string(task.action.kindName)),
        ("description", task.description.map(JSONValue.string) ?? .null),
        ("location", task.location.json),
        ("stage", .int(selection.stage[node])),
        ("deps", names(graph.dependencies[node])),
        ("priority", .int(task.priority)),
      ]
      switch task.action {
      case .group: break
      case .shell(let commands): members.append(("commands", .array(commands.map { .string($0.text) })))
      case .image(let steps): members.append(("steps", .array(steps.map { .string($0.summary) })))
      }
      if let directory = task.directory { members.append(("dir", .string(directory))) }
      if let name = task.taskName, name != task.name { members.append(("task", .string(name))) }
      if !task.values.isEmpty { members.append(("values", .object(task.values.map { ($0.0, .string($0.1)) }))) }
      if !task.params.isEmpty { members.append(("params", .array(task.params.map(ListRenderer.json)))) }
      if let condition = task.condition { members.append(("if", .string(condition.description))) }
      if !task.environment.isEmpty {
        members.append(("env", .object(task.environment.map { ($0.name, .string($0.value.description)) })))
      }
      if let prediction = predictions[node] {
        members.append(
          (
            "cache",
            .object([
              ("status", .string(prediction.status.rawValue)),
              ("reason", prediction.reason.map(JSONValue.string) ?? .null),
            ])
          ))
      }
      return .object(members)
    }
    // Each dependent's `deps` locations once (looking each edge up in its list was quadratic).
    var locations: [Int: [String: SourceLocation]] = [:]
    let edges = selection.edges.map { edge -> JSONValue in
      if locations[edge.to] == nil { locations[edge.to] = graph.dependencyLocations(of: edge.to) }
      let location = locations[edge.to]?[graph[edge.from].name] ?? graph[edge.to].location
      return .object([
        ("from", .string(graph[edge.from].name)),
        ("to", .string(graph[edge.to].name)),
        ("kind", .string(edge.carriesImage ? "image" : "order")),
        ("location", location.json),
      ])
    }
    return .object([
      ("format", .int(Self.formatVersion)),
      ("file", .string(graph.file.path)),
      ("targets", names(selection.targets)),
      ("tasks", .array(tasks)),
      ("edges", .array(edges)),
      ("stages", .array(selection.stages.map(names))),
      ("critical_path", names(selection.criticalPath)),
    ])
  }
}
