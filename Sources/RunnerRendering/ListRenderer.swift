import RunnerBasics
import RunnerModel

/// `--list`: every task by name, with its description (or, lacking one, what it groups).
package struct ListRenderer: Sendable {
  package init() {}

  package func render(_ graph: TaskGraph, json: Bool) -> String {
    let tasks = graph.tasks.filter { !$0.isInternal }.sorted { $0.name < $1.name }
    if json {
      let items = tasks.map { task -> JSONValue in
        .object([
          ("name", .string(task.name)),
          ("description", task.description.map(JSONValue.string) ?? .null),
          ("kind", .string(task.action.kindName)),
          ("deps", .array(task.dependencies.map { .string($0.name) })),
          ("location", task.location.json),
        ])
      }
      return JSONValue.array(items).serialized(pretty: true) + "\n"
    }
    let width = tasks.map(\.name.count).max() ?? 0
    var out = ""
    for task in tasks {
      let detail =
        task.description
        ?? (task.dependencies.isEmpty ? "" : "(deps: \(task.dependencies.map(\.name).joined(separator: ", ")))")
      out += task.name
      if !detail.isEmpty { out += String(repeating: " ", count: width - task.name.count + 2) + detail }
      out += "\n"
    }
    return out
  }
}
