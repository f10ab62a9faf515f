/// A run's place in a distributed trace (W3C Trace Context): the trace it belongs to, and the
/// span ids of the run and of each task attempt, known before anything starts so that a task's
/// `TRACEPARENT` and the span exported for it agree.
package struct TraceContext: Sendable, Equatable {
  /// 16 bytes.
  package let traceID: [UInt8]
  /// The span the run's own span is a child of: the `TRACEPARENT` runner was started with.
  package let parentSpanID: [UInt8]?

  package init(traceID: [UInt8], parentSpanID: [UInt8]? = nil) {
    self.traceID = traceID
    self.parentSpanID = parentSpanID
  }

  /// A new trace, or the one `traceparent` (runner's own environment) names, under its span.
  package static func start(traceparent: String?) -> TraceContext {
    if let traceparent, let parsed = parse(traceparent) { return parsed }
    var generator = SystemRandomNumberGenerator()
    var id = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    if id.allSatisfy({ $0 == 0 }) { id[15] = 1 }
    return TraceContext(traceID: id)
  }

  /// `00-TRACEID-SPANID-FLAGS`, as the W3C format writes it; nil when it is not one.
  package static func parse(_ text: String) -> TraceContext? {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count >= 4, parts[0].count == 2, parts[0] != "ff", parts[1].count == 32, parts[2].count == 16,
      let trace = bytes(parts[1]), let span = bytes(parts[2]), trace.contains(where: { $0 != 0 }),
      span.contains(where: { $0 != 0 })
    else { return nil }
    return TraceContext(traceID: trace, parentSpanID: span)
  }

  /// The run's own span.
  package var runSpanID: [UInt8] { spanID("run") }

  /// The span of attempt `attempt` (from 1; 0 for a task that ended without running) of the
  /// task at index `task` of the graph.
  package func spanID(task: Int, attempt: Int) -> [UInt8] { spanID("task", String(task), String(attempt)) }

  /// The span of a wait for a readiness gate of the task at index `task`.
  package func spanID(task: Int, gate: String) -> [UInt8] { spanID("gate", String(task), gate) }

  /// What a task's process gets as `TRACEPARENT`: its attempt's span, sampled.
  package func traceparent(task: Int, attempt: Int) -> String {
    "00-" + Self.hex(traceID) + "-" + Self.hex(spanID(task: task, attempt: attempt)) + "-01"
  }

  /// Eight bytes of FNV-1a over the trace id and `parts`: the same in every part of runner.
  func spanID(_ parts: String...) -> [UInt8] {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func add(_ byte: UInt8) {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    for byte in traceID { add(byte) }
    for part in parts {
      add(0)
      for byte in part.utf8 { add(byte) }
    }
    if hash == 0 { hash = 1 }
    return (0..<8).map { UInt8(truncatingIfNeeded: hash >> (56 - 8 * UInt64($0))) }
  }

  package static func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for byte in bytes {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 15)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  static func bytes(_ hex: Substring) -> [UInt8]? {
    var out: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      guard let byte = UInt8(hex[index..<next], radix: 16), hex[index..<next].allSatisfy(\.isLowercaseHexDigit)
      else { return nil }
      out.append(byte)
      index = next
    }
    return out
  }
}

extension Character {
  fileprivate var isLowercaseHexDigit: Bool { ("0"..."9").contains(self) || ("a"..."f").contains(self) }
}
