import RunnerBasics
import RunnerEvents
import RunnerModel

/// `--trace FILE`: the run in Chrome's trace-event format, which Perfetto
/// (ui.perfetto.dev) and chrome://tracing open.
///
/// Each attempt of each task is a complete event (`"ph":"X"`) on process 1, on its lane's
/// thread (lane N, a concurrency slot, is thread N + 1, named `lane N`), with its state,
/// attempt, reason and how its last command ended (`exit` or `signal`) in `args`. Times are
/// microseconds since the run started.
package struct TraceRenderer: Sendable {
  package init() {}

  package func render(_ selection: GraphSelection, record: RunRecord, summary: RunSummary) -> String {
    let graph = selection.graph
    var events: [JSONValue] = [
      metadata("process_name", tid: 0, ("name", .string("runner \(graph.file.path)")))
    ]
    for lane in 0..<record.laneCount {
      events.append(metadata("thread_name", tid: Self.tid(lane), ("name", .string("lane \(lane + 1)"))))
      events.append(metadata("thread_sort_index", tid: Self.tid(lane), ("sort_index", .int(lane + 1))))
    }
    for attempt in record.attempts {
      let end = attempt.end ?? record.duration
      var args: [(String, JSONValue)] = [
        ("state", .string((attempt.outcome ?? .cancelled).rawValue)), ("attempt", .int(attempt.number)),
      ]
      if let reason = attempt.reason { args.append(("reason", .string(reason))) }
      switch attempt.exit {
      case .exited(let code)?: args.append(("exit", .int(Int(code))))
      case .signaled(let signal)?: args.append(("signal", .int(Int(signal))))
      case nil: break
      }
      events.append(
        .object([
          ("name", .string(graph[attempt.task].name)), ("cat", .string(graph[attempt.task].action.kindName)),
          ("ph", .string("X")), ("ts", .int(MarkupText.microseconds(attempt.start))),
          ("dur", .int(max(0, MarkupText.microseconds(end - attempt.start)))), ("pid", .int(1)),
          ("tid", .int(Self.tid(attempt.lane))), ("args", .object(args)),
        ]))
    }
    let document = JSONValue.object([
      ("displayTimeUnit", .string("ms")),
      ("otherData", .object([("tool", .string("runner")), ("concurrency", .int(record.concurrency))])),
      ("traceEvents", .array(events)),
    ])
    return document.serialized(pretty: true) + "\n"
  }

  /// A lane's thread id: lane 1 is thread 2, as a thread whose id is the process's (1) is
  /// its "main thread" to Perfetto, whatever its name says.
  static func tid(_ lane: Int) -> Int { lane + 2 }

  func metadata(_ name: String, tid: Int, _ argument: (String, JSONValue)) -> JSONValue {
    .object([
      ("name", .string(name)), ("ph", .string("M")), ("pid", .int(1)), ("tid", .int(tid)),
      ("args", .object([argument])),
    ])
  }
}
