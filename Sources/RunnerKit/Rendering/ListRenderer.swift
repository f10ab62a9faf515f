/// `--list`: every task by name, with its description (or, lacking one, what it groups).
public struct ListRenderer: Sendable {
  public init() {}

  public func render(_ graph: TaskGraph, json: Bool) -> String {
    let tasks = graph.tasks.sorted { $0.name < $1.name }
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
    return tasks.map { task in
      let detail =
        task.description
        ?? (task.dependencies.isEmpty ? "" : "(deps: \(task.dependencies.map(\.name).joined(separator: ", ")))")
      let line = task.name + String(repeating: " ", count: width - task.name.count) + "  " + detail
      return String(line.reversed().drop { $0 == " " }.reversed()) + "\n"
    }.joined()
  }
}
