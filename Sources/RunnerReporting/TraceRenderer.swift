import RunnerBasics
import RunnerExecution
import RunnerModel

/// `--trace FILE`: the run in Chrome's trace-event format, which Perfetto
/// (ui.perfetto.dev) and chrome://tracing open.
///
/// Each attempt of each task is a complete event (`"ph":"X"`) on process 1, thread = its
/// lane (a concurrency slot, from 1), with its state, attempt, reason and exit status in
/// `args`. Times are microseconds since the run started.
package struct TraceRenderer: Sendable {
  package init() {}

  package func render(_ selection: GraphSelection, record: RunRecord, summary: RunSummary) -> String {
    let graph = selection.graph
    var events: [JSONValue] = [
      metadata("process_name", tid: 0, ("name", .string("runner \(graph.file.path)")))
    ]
    for lane in 0..<record.laneCount {
      events.append(metadata("thread_name", tid: lane + 1, ("name", .string("lane \(lane + 1)"))))
      events.append(metadata("thread_sort_index", tid: lane + 1, ("sort_index", .int(lane + 1))))
    }
    for attempt in record.attempts {
      let end = attempt.end ?? record.duration
      var args: [(String, JSONValue)] = [
        ("state", .string((attempt.outcome ?? .cancelled).rawValue)), ("attempt", .int(attempt.number)),
      ]
      if let reason = attempt.reason { args.append(("reason", .string(reason))) }
      if let exit = exitStatus(of: attempt, graph: graph, summary: summary) { args.append(exit) }
      events.append(
        .object([
          ("name", .string(graph[attempt.task].name)), ("cat", .string(graph[attempt.task].action.kindName)),
          ("ph", .string("X")), ("ts", .int(MarkupText.microseconds(attempt.start))),
          ("dur", .int(max(0, MarkupText.microseconds(end - attempt.start)))), ("pid", .int(1)),
          ("tid", .int(attempt.lane + 1)), ("args", .object(args)),
        ]))
    }
    let document = JSONValue.object([
      ("displayTimeUnit", .string("ms")),
      ("otherData", .object([("tool", .string("runner")), ("concurrency", .int(record.concurrency))])),
      ("traceEvents", .array(events)),
    ])
    return document.serialized(pretty: true) + "\n"
  }

  func metadata(_ name: String, tid: Int, _ argument: (String, JSONValue)) -> JSONValue {
    .object([
      ("name", .string(name)), ("ph", .string("M")), ("pid", .int(1)), ("tid", .int(tid)),
      ("args", .object([argument])),
    ])
  }

  /// The exit status of a shell task's last attempt, when known.
  func exitStatus(of attempt: RunRecord.Attempt, graph: TaskGraph, summary: RunSummary) -> (String, JSONValue)? {
    guard case .shell = graph[attempt.task].action else { return nil }
    if attempt.outcome == .succeeded, attempt.reason?.first?.isNumber ?? true { return ("exit", .int(0)) }
    guard attempt.outcome == .failed,
      let failure = summary.failures.first(where: { $0.task == attempt.task }),
      case .command(_, let outcome) = failure.reason,
      attempt.reason == nil || attempt.reason == failure.reason.description
        || attempt.reason?.hasPrefix(
          failure.reason.description) == true
    else { return nil }
    switch outcome {
    case .exited(let code): return ("exit", .int(Int(code)))
    case .signaled(let signal): return ("signal", .int(Int(signal)))
    }
  }
}
