import RunnerBasics
import RunnerModel

/// `--describe NAME`: one task in full — what it runs, its edges both ways, every setting,
/// and where it is defined.
package struct DescribeRenderer: Sendable {
  package init() {}

  package func render(_ index: Int, in graph: TaskGraph) -> String {
    let task = graph[index]
    var rows: [(String, [String])] = [("kind", [task.action.kindName])]
    switch task.action {
    case .group: break
    case .shell(let commands): rows.append(("run", commands.map { "$ " + $0.text }))
    case .image(let steps):
      var lines = steps.map(\.summary)
      if let input = graph.imageInput(of: index) { lines.insert("(image from \(graph[input].name))", at: 0) }
      rows.append(("image", lines))
    }
    let names = { (indices: [Int]) in [indices.map { graph[$0].name }.joined(separator: ", ")] }
    if !graph.dependencies[index].isEmpty { rows.append(("deps", names(graph.dependencies[index]))) }
    if !graph.dependents[index].isEmpty { rows.append(("dependents", names(graph.dependents[index]))) }
    if let directory = task.directory { rows.append(("dir", [directory])) }
    if !task.environment.isEmpty { rows.append(("env", task.environment.map { "\($0.name)=\($0.value)" })) }
    if task.priority != 0 { rows.append(("priority", [String(task.priority)])) }
    if let timeout = task.timeout { rows.append(("timeout", [formatDuration(timeout)])) }
    if task.retries > 0 { rows.append(("retries", [String(task.retries)])) }
    if !task.sources.isEmpty { rows.append(("sources", task.sources)) }
    if !task.outputs.isEmpty { rows.append(("outputs", task.outputs)) }
    if !task.waitFor.isEmpty {
      rows.append(("wait_for", task.waitFor.map { "\($0) (timeout \(formatDuration($0.timeout)))" }))
    }
    if !task.resources.isEmpty { rows.append(("resources", [task.resources.joined(separator: ", ")])) }
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
}
