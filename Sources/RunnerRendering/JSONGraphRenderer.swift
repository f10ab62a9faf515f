import RunnerBasics
import RunnerCache
import RunnerModel

/// `--graph json`: the selected graph for machines. Keys keep a fixed order; `format`
/// versions the schema (documented in docs/tasks-file.md).
package struct JSONGraphRenderer: Sendable {
  package static let formatVersion = 1

  /// Secret values, shown as `***` in the environment this prints.
  let secrets: SecretMask

  package init(secrets: SecretMask = .none) { self.secrets = secrets }

  /// - Parameter predictions: what a run would do with each task, by index (the `cache` member).
  package func render(_ selection: GraphSelection, predictions: [Int: CachePrediction] = [:]) -> String {
    TextPieces.collect { write(selection, predictions: predictions, to: $0) }
  }

  /// The same text, handed to `emit` in pieces of about 1 MiB: a graph of a million tasks is
  /// written task by task, never held whole (neither as text nor as one `JSONValue`).
  package func write(
    _ selection: GraphSelection, predictions: [Int: CachePrediction] = [:], to emit: (String) -> Void
  ) {
    let graph = selection.graph
    var out = "{\n  \"format\": \(Self.formatVersion),\n  \"file\": "
    JSONValue.string(graph.file.path).write(to: &out, pretty: true, indent: "  ")
    out += ",\n  \"targets\": "
    names(selection.targets, graph).write(to: &out, pretty: true, indent: "  ")
    // Each item written straight out (a `JSONValue` per task costs more than the load).
    func list<Items: Collection>(_ key: String, _ items: Items, _ item: (Items.Element, inout String) -> Void) {
      out += ",\n  \"\(key)\": "
      guard !items.isEmpty else { return out += "[]" }
      out += "["
      for (position, element) in items.enumerated() {
        out += position > 0 ? ",\n    " : "\n    "
        item(element, &out)
        TextPieces.flush(&out, to: emit)
      }
      out += "\n  ]"
    }
    list("tasks", selection.members) { writeTask($0, selection, predictions: predictions, into: &$1) }
    var locations: [Int: [String: SourceLocation]] = [:]
    list("edges", selection.edges) { edge, out in
      out += "{\n      \"from\": "
      JSONValue.escape(graph[edge.from].name, into: &out)
      out += ",\n      \"to\": "
      JSONValue.escape(graph[edge.to].name, into: &out)
      out += edge.carriesImage ? ",\n      \"kind\": \"image\"" : ",\n      \"kind\": \"order\""
      let location = Self.location(of: edge, graph, cache: &locations)
      out += ",\n      \"location\": {\n        \"file\": "
      JSONValue.escape(location.file, into: &out)
      out += ",\n        \"line\": \(location.line),\n        \"column\": \(location.column)\n      }\n    }"
    }
    list("stages", selection.stages) { names($0, graph).write(to: &$1, pretty: true, indent: "    ") }
    out += ",\n  \"critical_path\": "
    names(selection.criticalPath, graph).write(to: &out, pretty: true, indent: "  ")
    emit(out + "\n}\n")
  }

  /// One task's object, at the depth of the `tasks` list (the layout `JSONValue` writes).
  func writeTask(
    _ node: Int, _ selection: GraphSelection, predictions: [Int: CachePrediction], into out: inout String
  ) {
    let graph = selection.graph
    let task = graph[node]
    func member(_ key: String, _ value: JSONValue) {
      out += ",\n      \""
      out += key
      out += "\": "
      value.write(to: &out, pretty: true, indent: "      ")
    }
    out += "{\n      \"name\": "
    JSONValue.escape(task.name, into: &out)
    out += ",\n      \"kind\": \""
    out += task.action.kindName
    out += "\",\n      \"description\": "
    if let description = task.description { JSONValue.escape(description, into: &out) } else { out += "null" }
    out += ",\n      \"location\": {\n        \"file\": "
    JSONValue.escape(task.location.file, into: &out)
    out += ",\n        \"line\": \(task.location.line),\n        \"column\": \(task.location.column)\n      },"
    out += "\n      \"stage\": \(selection.stage[node]),\n      \"deps\": "
    let dependencies = graph.dependencies[node]
    if dependencies.isEmpty {
      out += "[]"
    } else {
      out += "["
      for (position, dependency) in dependencies.enumerated() {
        out += position > 0 ? ",\n        " : "\n        "
        JSONValue.escape(graph[dependency].name, into: &out)
      }
      out += "\n      ]"
    }
    out += ",\n      \"priority\": \(task.priority)"
    switch task.action {
    case .group: break
    case .shell(let commands): member("commands", .array(commands.map { .string($0.text) }))
    case .image(let steps): member("steps", .array(steps.map { .string($0.summary) }))
    }
    if let directory = task.directory { member("dir", .string(directory)) }
    if let name = task.taskName, name != task.name { member("task", .string(name)) }
    if !task.values.isEmpty { member("values", .object(task.values.map { ($0.0, .string($0.1)) })) }
    if !task.params.isEmpty { member("params", .array(task.params.map(ListRenderer.json))) }
    if let condition = task.condition { member("if", .string(condition.description)) }
    if !task.environment.isEmpty {
      // An unset variable (`X: null`) is null, an empty one "".
      member(
        "env",
        .object(
          task.environment.map {
            ($0.name, $0.origin == .unset ? .null : .string(secrets.masking($0.value.description)))
          }))
    }
    if let prediction = predictions[node] {
      member(
        "cache",
        .object([
          ("status", .string(prediction.status.rawValue)),
          ("reason", prediction.reason.map(JSONValue.string) ?? .null),
        ]))
    }
    out += "\n    }"
  }

  func names(_ nodes: some Collection<Int>, _ graph: TaskGraph) -> JSONValue {
    .array(nodes.map { .string(graph[$0].name) })
  }

  /// Where the dependent names the dependency: a short `deps` list is searched, a long one's
  /// locations are looked up once (searching it per edge was quadratic on a wide task).
  static func location(of edge: GraphEdge, _ graph: TaskGraph, cache: inout [Int: [String: SourceLocation]])
    -> SourceLocation
  {
    let name = graph[edge.from].name
    if graph[edge.to].dependencies.count <= 16 {
      return graph[edge.to].dependencies.first { $0.name == name }?.location ?? graph[edge.to].location
    }
    if cache[edge.to] == nil { cache[edge.to] = graph.dependencyLocations(of: edge.to) }
    return cache[edge.to]?[name] ?? graph[edge.to].location
  }
}
