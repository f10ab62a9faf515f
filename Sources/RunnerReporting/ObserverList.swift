import RunnerBasics
import RunnerExecution

/// Sends each event to several observers (the console, the event log, a test recorder).
package struct ObserverList: RunObserver {
  package var observers: [any RunObserver]

  package init(_ observers: [any RunObserver]) { self.observers = observers }

  package func record(_ event: RunEvent) {
    for observer in observers { observer.record(event) }
  }

  package func output(task: Int, stream: OutputStreamKind, lines: OutputLines, time: Duration) {
    for observer in observers { observer.output(task: task, stream: stream, lines: lines, time: time) }
  }
}
