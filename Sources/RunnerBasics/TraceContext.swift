/// A run's place in a distributed trace (W3C Trace Context): the trace it belongs to, and the
/// span ids of the run and of each task attempt, known before anything starts so that a task's
/// `TRACEPARENT` and the span exported for it agree.
package struct TraceContext: Sendable, Equatable {
  /// 16 bytes.
  package let traceID: [UInt8]
  /// The span the run's own span is a child of: the `TRACEPARENT` runner was started with.
  package let parentSpanID: [UInt8]?
  /// The run's own span: random, so that two runs in one trace (a runner a task starts, two
  /// runs of one CI step) never share an id; the others are derived from it.
  package let runSpanID: [UInt8]
  /// The caller's sampling decision: false when `TRACEPARENT` said the trace is not recorded.
  package let sampled: Bool

  package init(traceID: [UInt8], parentSpanID: [UInt8]? = nil, runSpanID: [UInt8]? = nil, sampled: Bool = true) {
    self.traceID = traceID
    self.parentSpanID = parentSpanID
    self.runSpanID = runSpanID ?? Self.random(8)
    self.sampled = sampled
  }

  /// A new trace, or the one `traceparent` (runner's own environment) names, under its span.
  package static func start(traceparent: String?) -> TraceContext {
    if let traceparent, let parsed = parse(traceparent) { return parsed }
    return TraceContext(traceID: random(16))
  }

  /// Random bytes, not all zero (an id of zeros is invalid).
  static func random(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    var id = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    if id.allSatisfy({ $0 == 0 }) { id[count - 1] = 1 }
    return id
  }

  /// `VERSION-TRACEID-SPANID-FLAGS` as the W3C format writes it (lowercase hex; version `00`
  /// has exactly these four fields, a later one may add more); nil when it is not one.
  package static func parse(_ text: String) -> TraceContext? {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count >= 4, parts[0].count == 2, parts[0] != "ff", parts[0] != "00" || parts.count == 4,
      let version = bytes(parts[0]), !version.isEmpty, parts[1].count == 32, parts[2].count == 16,
      parts[3].count == 2, let flags = bytes(parts[3]), let trace = bytes(parts[1]), let span = bytes(parts[2]),
      trace.contains(where: { $0 != 0 }), span.contains(where: { $0 != 0 })
    else { return nil }
    return TraceContext(traceID: trace, parentSpanID: span, sampled: flags[0] & 1 == 1)
  }

  /// The span of attempt `attempt` (from 1; 0 for a task that ended without running) of the
  /// task at index `task` of the graph.
  package func spanID(task: Int, attempt: Int) -> [UInt8] { spanID("task", String(task), String(attempt)) }

  /// The span of the run's `wait`th wait for a readiness gate.
  package func spanID(wait: Int) -> [UInt8] { spanID("wait", String(wait)) }

  /// What a task's process gets as `TRACEPARENT`: its attempt's span, sampled.
  package func traceparent(task: Int, attempt: Int) -> String {
    "00-" + Self.hex(traceID) + "-" + Self.hex(spanID(task: task, attempt: attempt)) + "-01"
  }

  /// Eight bytes of FNV-1a over the trace id, the run's span and `parts`: the same in every
  /// part of one runner, different in another run.
  func spanID(_ parts: String...) -> [UInt8] {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func add(_ byte: UInt8) {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    for byte in traceID + runSpanID { add(byte) }
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
