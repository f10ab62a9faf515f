import Glibc
import Synchronization

/// `--events FILE`: every state change and output line as JSON Lines (schema in docs/events.md).
///
/// Lines are written as they happen, so a run that is killed keeps what it logged.
public final class EventLogWriter: RunObserver {
  public static let schemaVersion = 1

  let names: [String]
  private let descriptor: Mutex<Int32>

  /// - Throws: a message naming the file when it cannot be created.
  public init(path: String, taskNames: [String]) throws(TaskFileError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw .unwritable(path, reason: FileReader.describe(errno)) }
    descriptor = Mutex(fd)
    names = taskNames
  }

  deinit {
    descriptor.withLock { fd in
      if fd >= 0 { close(fd) }
    }
  }

  public func record(_ event: RunEvent) {
    var members: [(String, JSONValue)] = [("v", .int(Self.schemaVersion)), ("time", .double(seconds(event.time)))]
    if let task = event.task { members.append(("task", .string(names[task]))) }
    switch event.kind {
    case .runStarted(let tasks, let concurrency):
      members += [("event", .string("run_started")), ("tasks", .int(tasks)), ("concurrency", .int(concurrency))]
    case .state(let state, let attempt, let reason):
      members += [("event", .string("state")), ("state", .string(state.rawValue)), ("attempt", .int(attempt))]
      if let reason { members.append(("reason", .string(reason))) }
    case .waiting(let gate):
      members += [("event", .string("waiting")), ("gate", .string(gate))]
    case .retrying(let attempt, let delay, let reason):
      members += [
        ("event", .string("retrying")), ("attempt", .int(attempt)), ("delay", .double(seconds(delay))),
        ("reason", .string(reason)),
      ]
    case .runFinished(let summary):
      members.append(("event", .string("run_finished")))
      for state in TaskState.allCases where state.isFinal {
        members.append((state.rawValue, .int(summary.counts[state] ?? 0)))
      }
      members += [("duration", .double(seconds(summary.duration))), ("exit_code", .int(Int(summary.exitCode)))]
      if let signal = summary.interruption {
        members.append(("interrupted_by", .string(signal == SIGTERM ? "SIGTERM" : "SIGINT")))
      }
      if let deadlock = summary.deadlock { members.append(("deadlock", .string(deadlock))) }
    }
    write(.object(members))
  }

  public func output(task: Int, stream: OutputStreamKind, line: UnsafeRawBufferPointer, time: Duration) {
    write(
      .object([
        ("v", .int(Self.schemaVersion)), ("time", .double(seconds(time))), ("task", .string(names[task])),
        ("event", .string("output")), ("stream", .string(stream == .stdout ? "stdout" : "stderr")),
        ("line", .string(String(decoding: line, as: UTF8.self))),
      ]))
  }

  func seconds(_ duration: Duration) -> Double {
    let (whole, attoseconds) = duration.components
    return (Double(whole) + Double(attoseconds / 1_000_000_000_000) / 1_000_000).rounded(toPlaces: 6)
  }

  private func write(_ value: JSONValue) {
    let line = value.serialized() + "\n"
    descriptor.withLock { fd in Terminal.write(line, to: fd) }
  }
}

extension Double {
  func rounded(toPlaces places: Int) -> Double {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    return (self * scale).rounded() / scale
  }
}
