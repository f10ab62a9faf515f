import RunnerBasics
import RunnerEvents
import RunnerModel

/// A run as one OpenTelemetry trace: an OTLP `ExportTraceServiceRequest` (protobuf, as
/// OTLP/HTTP sends it) with a span for the run, one per task attempt, one per wait for a
/// readiness gate, and one (without duration) for each task that ended without running here
/// (up to date, restored, skipped). Names and reasons are the masked ones the reports show.
package struct OTLPTraceRenderer: Sendable {
  /// A span's attribute value.
  enum Value {
    case string(String)
    case int(Int)
    case bool(Bool)
  }

  package let trace: TraceContext
  package let serviceName: String
  package let version: String

  package init(trace: TraceContext, serviceName: String, version: String) {
    self.trace = trace
    self.serviceName = serviceName
    self.version = version
  }

  /// - Parameters:
  ///   - start: when the run began, in nanoseconds since the epoch.
  ///   - names: each task's name as shown (secrets masked), by index.
  ///   - record: nil for a run concluded from the no-op record: the run's span alone.
  package func render(
    file: String, targets: [String], start: UInt64, names: [String], record: RunRecord?, summary: RunSummary
  ) -> [UInt8] {
    let at = { (time: Duration) -> UInt64 in start &+ UInt64(max(0, Self.nanoseconds(time))) }
    let end = at(summary.duration)
    var spans: [[UInt8]] = []
    var runAttributes: [(String, Value)] = [
      ("runner.file", .string(file)), ("runner.targets", .string(targets.joined(separator: " "))),
      ("runner.succeeded", .bool(summary.succeeded)), ("runner.exit_code", .int(Int(summary.exitCode))),
    ]
    if record == nil { runAttributes.append(("runner.noop", .bool(true))) }
    spans.append(
      span(
        id: trace.runSpanID, parent: trace.parentSpanID,
        name: "runner " + (targets.isEmpty ? file : targets.joined(separator: " ")),
        start: start, end: end, attributes: runAttributes, failed: !summary.succeeded ? "the run failed" : nil))
    guard let record else { return request(spans) }
    var started = Set<Int>()
    for attempt in record.attempts {
      started.insert(attempt.task)
      let name = names.indices.contains(attempt.task) ? names[attempt.task] : "task \(attempt.task)"
      var attributes: [(String, Value)] = [
        ("runner.task", .string(name)), ("runner.attempt", .int(attempt.number)),
        ("runner.state", .string((attempt.outcome ?? .cancelled).rawValue)),
      ]
      if let reason = attempt.reason { attributes.append(("runner.reason", .string(reason))) }
      switch attempt.exit {
      case .exited(let code)?: attributes.append(("process.exit.code", .int(Int(code))))
      case .signaled(let signal)?: attributes.append(("runner.signal", .int(Int(signal))))
      case nil: break
      }
      var events: [(String, UInt64)] = []
      if let ready = attempt.ready { events.append(("ready", at(ready))) }
      if let stopping = attempt.stopping { events.append(("stopping", at(stopping))) }
      let failed = attempt.outcome == .failed ? (attempt.reason ?? "failed") : nil
      spans.append(
        span(
          id: trace.spanID(task: attempt.task, attempt: attempt.number), parent: trace.runSpanID, name: name,
          start: at(attempt.start), end: at(attempt.end ?? summary.duration), attributes: attributes, events: events,
          failed: failed, unfinished: attempt.outcome == .cancelled || attempt.outcome == nil))
    }
    for (index, wait) in record.waits.enumerated() {
      let name = names.indices.contains(wait.task) ? names[wait.task] : "task \(wait.task)"
      // A task's gates before it starts; a service's once it runs, until it is ready.
      let next = record.attempts.first { $0.task == wait.task && $0.start >= wait.start }?.start
      let ready = record.attempts.last { $0.task == wait.task && $0.start <= wait.start }?.ready
      let until = next ?? ready ?? record.outcomes[wait.task]?.end ?? summary.duration
      spans.append(
        span(
          id: trace.spanID(wait: index), parent: trace.runSpanID, name: "wait for \(wait.gate)",
          start: at(wait.start), end: at(until),
          attributes: [("runner.task", .string(name)), ("runner.gate", .string(wait.gate))]))
    }
    for (task, outcome) in record.outcomes.sorted(by: { $0.key < $1.key }) where !started.contains(task) {
      let name = names.indices.contains(task) ? names[task] : "task \(task)"
      let reason = outcome.reason ?? ""
      var attributes: [(String, Value)] = [
        ("runner.task", .string(name)), ("runner.state", .string(outcome.state.rawValue)),
        ("runner.reason", .string(reason)),
      ]
      if reason.hasPrefix("up to date") || reason.hasPrefix("restored") {
        attributes.append(("runner.cache_hit", .bool(true)))
      }
      if reason.contains("remote") { attributes.append(("runner.remote", .bool(true))) }
      spans.append(
        span(
          id: trace.spanID(task: task, attempt: 0), parent: trace.runSpanID, name: name, start: at(outcome.end),
          end: at(outcome.end), attributes: attributes, failed: outcome.state == .failed ? reason : nil))
    }
    return request(spans)
  }

  /// `ExportTraceServiceRequest { ResourceSpans { Resource, ScopeSpans { scope, spans } } }`.
  func request(_ spans: [[UInt8]]) -> [UInt8] {
    var out = ProtobufWriter()
    out.message(1) { resourceSpans in
      resourceSpans.message(1) { resource in
        Self.attribute(&resource, field: 1, "service.name", .string(serviceName))
        Self.attribute(&resource, field: 1, "service.version", .string(version))
      }
      resourceSpans.message(2) { scopeSpans in
        scopeSpans.message(1) { scope in
          scope.string(1, "runner")
          scope.string(2, version)
        }
        for span in spans { scopeSpans.data(2, span) }
      }
    }
    return out.bytes
  }

  func span(
    id: [UInt8], parent: [UInt8]?, name: String, start: UInt64, end: UInt64, attributes: [(String, Value)],
    events: [(String, UInt64)] = [], failed: String? = nil, unfinished: Bool = false
  ) -> [UInt8] {
    var span = ProtobufWriter()
    span.data(1, trace.traceID)
    span.data(2, id)
    if let parent { span.data(4, parent) }
    span.string(5, name)
    span.integer(6, 1)  // SPAN_KIND_INTERNAL
    span.fixed64(7, start)
    span.fixed64(8, max(start, end))
    for (key, value) in attributes { Self.attribute(&span, field: 9, key, value) }
    for (event, time) in events {
      span.message(11) { message in
        message.fixed64(1, time)
        message.string(2, event)
      }
    }
    span.message(15) { status in
      if let failed { status.string(2, failed) }
      status.integer(3, failed != nil ? 2 : unfinished ? 0 : 1)  // ERROR, UNSET, OK
    }
    return span.bytes
  }

  /// `KeyValue { key, AnyValue { string_value | bool_value | int_value } }`.
  static func attribute(_ writer: inout ProtobufWriter, field: Int, _ key: String, _ value: Value) {
    writer.message(field) { pair in
      pair.string(1, key)
      pair.message(2) { any in
        switch value {
        case .string(let text): any.string(1, text)
        case .bool(let flag): any.bool(2, flag)
        case .int(let number):
          any.tag(3, 0)
          any.varint(UInt64(bitPattern: Int64(number)))
        }
      }
    }
  }

  static func nanoseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }
}
