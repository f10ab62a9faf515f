import Synchronization

/// Keeps a `RunRecord` of the run's state changes for the reports written after it.
///
/// Ignores output lines, so it costs nothing on the output path.
public final class RunRecorder: RunObserver {
  private let state = Mutex(RunRecord())

  public init() {}

  public var record: RunRecord { state.withLock { $0 } }

  public func record(_ event: RunEvent) {
    state.withLock { $0.apply(event) }
  }

  public func output(task: Int, stream: OutputStreamKind, line: UnsafeRawBufferPointer, time: Duration) {}
}
