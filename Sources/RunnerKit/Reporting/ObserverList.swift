/// Sends each event to several observers (the console, the event log, a test recorder).
public struct ObserverList: RunObserver {
  public var observers: [any RunObserver]

  public init(_ observers: [any RunObserver]) { self.observers = observers }

  public func record(_ event: RunEvent) {
    for observer in observers { observer.record(event) }
  }

  public func output(task: Int, stream: OutputStreamKind, line: UnsafeRawBufferPointer, time: Duration) {
    for observer in observers { observer.output(task: task, stream: stream, line: line, time: time) }
  }
}
