import Synchronization

/// What a command that exits right after it is done keeps until then: the kernel drops a
/// process's memory at once, where freeing tens of thousands of records one by one is a
/// noticeable part of a short run (60 ms of a 10 000-task run after an edit).
package enum KeptUntilExit {
  private static let values = Mutex<[any Sendable]>([])

  package static func keep(_ value: any Sendable) {
    values.withLock { $0.append(value) }
  }

  /// Keeps a value that is not `Sendable`: it is only held, never touched again.
  package static func keep(unchecked value: Any) {
    keep(Held(value: value))
  }

  private struct Held: @unchecked Sendable {
    let value: Any
  }
}
