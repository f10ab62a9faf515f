import RunnerBasics
import RunnerModel

/// `--list`: every task by name, with its description (or, lacking one, what it groups).
package struct ListRenderer: Sendable {
  package init() {}

  package func render(_ graph: TaskGraph, json: Bool) -> String {
    TextPieces.collect { write(graph, json: json, to: $0) }
  }

  package func write(_ graph: TaskGraph, json: Bool, to emit: (String) -> Void) {
    // A node the loader made for other param values or a matrix combination is its task's.
    // Each include's tasks (and its default, the bare namespace) together, the root file's first.
    let namespace = { (task: TaskDefinition) -> String in
      task.scope < graph.file.scopes.count ? graph.file.scopes[task.scope].namespace : ""
    }
    // Indices, not tasks, sorted: a copy of a million tasks costs more than the load.
    let listed = graph.tasks.indices.filter {
      !graph[$0].isInternal && graph[$0].values.isEmpty && !graph[$0].name.contains("#")
    }.sorted { (namespace(graph[$0]), graph[$0].name) < (namespace(graph[$1]), graph[$1].name) }
    let tasks = listed.lazy.map { graph[$0] }
    var out = ""
    if json {
      // By position, not by `out`: a piece handed on empties it.
      for (position, task) in tasks.enumerated() {
        out += position == 0 ? "[\n  " : ",\n  "
        JSONValue.object([
          ("name", .string(task.name)),
          ("aliases", .array(task.aliases.map(JSONValue.string))),
          ("description", task.description.map(JSONValue.string) ?? .null),
          ("kind", .string(task.action.kindName)),
          ("deps", .array(task.dependencies.map { .string($0.name) })),
          ("params", .array(graph.file.params(of: task).map(Self.json))),
          ("matrix", .object((task.matrix?.axes ?? []).map { ($0.name, .array($0.values.map(JSONValue.string))) })),
          ("location", task.location.json),
        ]).write(to: &out, pretty: true, indent: "  ")
        TextPieces.flush(&out, to: emit)
      }
      emit(tasks.isEmpty ? "[]\n" : out + "\n]\n")
      return
    }
    // A task's aliases follow its name: `build (b)`.
    let shown = { (task: TaskDefinition) in
      task.aliases.isEmpty ? task.name : task.name + " (" + task.aliases.joined(separator: ", ") + ")"
    }
    let width = tasks.map { shown($0).count }.max() ?? 0
    var previous = ""
    var first = true
    for task in tasks {
      if namespace(task) != previous, !first { out += "\n" }
      first = false
      previous = namespace(task)
      var detail =
        task.description
        ?? (task.dependencies.isEmpty || task.matrix != nil
          ? "" : "(deps: \(task.dependencies.map(\.name).filter { !$0.contains("#") }.joined(separator: ", ")))")
      let extras =
        task.params.map(Self.text)
        + (task.matrix?.axes ?? []).map { "\($0.name) in \($0.values.joined(separator: "|"))" }
      if !extras.isEmpty { detail += (detail.isEmpty ? "" : "  ") + "[" + extras.joined(separator: ", ") + "]" }
      let name = shown(task)
      out += name
      if !detail.isEmpty { out += String(repeating: " ", count: width - name.count + 2) + detail }
      out += "\n"
      TextPieces.flush(&out, to: emit)
    }
    if !graph.file.params.isEmpty {
      out += "\nparams: " + graph.file.params.map(Self.text).joined(separator: ", ") + "\n"
    }
    emit(out)
  }

  /// `mode=debug (debug|release)`, `target=… (required: staging|prod)`.
  static func text(_ param: ParamDeclaration) -> String {
    let value = param.defaultValue ?? (param.isRequired ? "…" : "")
    var choices = param.choices.joined(separator: "|")
    if param.isRequired { choices = choices.isEmpty ? "required" : "required: " + choices }
    return "\(param.name)=\(value)" + (choices.isEmpty ? "" : " (\(choices))")
  }

  static func json(_ param: ParamDeclaration) -> JSONValue {
    .object([
      ("name", .string(param.name)), ("default", param.defaultValue.map(JSONValue.string) ?? .null),
      ("choices", .array(param.choices.map(JSONValue.string))), ("required", .bool(param.isRequired)),
      ("description", param.description.map(JSONValue.string) ?? .null),
    ])
  }
}
