import RunnerBasics
import RunnerEvents
import RunnerModel
import RunnerProcess

/// Sends each event to several observers (the console, the event log, a test recorder), with
/// the run's secrets masked in every reason it carries (a task's output comes masked already).
package struct ObserverList: RunObserver {
  package var observers: [any RunObserver] {
    didSet { wantsUnfinished = observers.contains { $0.wantsUnfinished } }
  }
  let mask: SecretMask
  package private(set) var wantsUnfinished: Bool

  package init(_ observers: [any RunObserver], mask: SecretMask = .none) {
    self.observers = observers
    self.mask = mask
    wantsUnfinished = observers.contains { $0.wantsUnfinished }
  }

  package func record(_ event: RunEvent) {
    let event = mask.isEmpty ? event : event.masked(by: mask)
    for observer in observers { observer.record(event) }
  }

  package func output(task: Int, stream: OutputStreamKind, lines: OutputLines, time: Duration) {
    for observer in observers { observer.output(task: task, stream: stream, lines: lines, time: time) }
  }

  package func unfinished(task: Int, stream: OutputStreamKind, bytes: UnsafeRawBufferPointer) {
    for observer in observers where observer.wantsUnfinished {
      observer.unfinished(task: task, stream: stream, bytes: bytes)
    }
  }
}

extension RunEvent {
  /// This event with `mask`'s values replaced in its reasons.
  package func masked(by mask: SecretMask) -> RunEvent {
    var event = self
    switch kind {
    case .state(let state, let attempt, let reason?) where mask.reveals(reason):
      event.kind = .state(state, attempt: attempt, reason: mask.masking(reason))
    case .retrying(let attempt, let after, let reason) where mask.reveals(reason):
      event.kind = .retrying(attempt: attempt, after: after, reason: mask.masking(reason))
    case .decided(let decision) where mask.reveals(decision.reason?.description ?? ""):
      event.kind = .decided(decision.mapping(mask.masking))
    case .waiting(let gate) where mask.reveals(gate):
      event.kind = .waiting(gate: mask.masking(gate))
    case .runFinished(let summary):
      event.kind = .runFinished(summary.masked(by: mask))
    default: break
    }
    return event
  }
}

extension RunSummary {
  /// This summary with `mask`'s values replaced in each failure's reason and the deadlock report.
  package func masked(by mask: SecretMask) -> RunSummary {
    guard !mask.isEmpty else { return self }
    var summary = self
    for index in summary.failures.indices where mask.reveals(summary.failures[index].reason.description) {
      summary.failures[index].reason = .message(mask.masking(summary.failures[index].reason.description))
    }
    summary.deadlock = summary.deadlock.map(mask.masking)
    return summary
  }
}
