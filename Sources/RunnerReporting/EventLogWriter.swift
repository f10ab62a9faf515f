import Glibc
import RunnerBasics
import RunnerEvents
import RunnerModel
import RunnerProcess
import Synchronization

/// `--events FILE`: every state change and output line as JSON Lines (schema in docs/events.md).
///
/// Lines are written as they happen, so a run that is killed keeps what it logged. A write
/// that fails (a full disk) is reported once on stderr and ends the log: a log with a gap in
/// the middle would read as a different run. `writeFailure` tells the caller, which makes a
/// successful run exit with status 2.
package final class EventLogWriter: RunObserver {
  package static let schemaVersion = 1

  let names: [String]
  let path: String
  private let file: Mutex<File>

  private struct File {
    /// -1 once closed.
    var descriptor: Int32
    /// The errno of the first write (or close) that failed.
    var failure: Int32?
  }

  /// - Throws: a message naming the file when it cannot be created.
  package init(path: String, taskNames: [String]) throws(TaskFileError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw .unwritable(path, reason: FileReader.describe(errno)) }
    file = Mutex(File(descriptor: fd))
    self.path = path
    names = taskNames
  }

  deinit {
    file.withLock { file in
      if file.descriptor >= 0 { Glibc.close(file.descriptor) }
    }
  }

  /// Why the log is incomplete: the first failed write's error, or `nil` when every line was written.
  package var writeFailure: Int32? { file.withLock { $0.failure } }

  /// Closes the file after the last event; a failure to close counts as a failed write.
  package func close() {
    let failure: Int32? = file.withLock { file in
      guard file.descriptor >= 0 else { return nil }
      defer { file.descriptor = -1 }
      guard Glibc.close(file.descriptor) != 0, errno != EINTR, file.failure == nil else { return nil }
      file.failure = errno
      return errno
    }
    if let failure { warn(failure) }
  }

  package func record(_ event: RunEvent) {
    if case .exited = event.kind { return }
    var members: [(String, JSONValue)] = [("v", .int(Self.schemaVersion)), ("time", .double(seconds(event.time)))]
    if let task = event.task { members.append(("task", .string(names[task]))) }
    switch event.kind {
    case .runStarted(let tasks, let concurrency):
      members += [("event", .string("run_started")), ("tasks", .int(tasks)), ("concurrency", .int(concurrency))]
    case .state(let state, let attempt, let reason):
      members += [("event", .string("state")), ("state", .string(state.rawValue)), ("attempt", .int(attempt))]
      if state == .skipped {
        // Why, as a word a program can match; what happened, as the console says it.
        members.append(("reason", .string(TaskState.skipKind(ofReason: reason))))
        if let reason { members.append(("message", .string(reason))) }
      } else if let reason {
        members.append(("reason", .string(reason)))
      }
    case .decided(let decision):
      members.append(("event", .string("decided")))
      switch decision {
      case .upToDate: members.append(("decision", .string("up-to-date")))
      case .restore(let reason): members += [("decision", .string("restore")), ("why", .string(reason.description))]
      case .run(let reason): members += [("decision", .string("run")), ("why", .string(reason.description))]
      }
    case .waiting(let gate):
      members += [("event", .string("waiting")), ("gate", .string(gate))]
    case .retrying(let attempt, let delay, let reason):
      members += [
        ("event", .string("retrying")), ("attempt", .int(attempt)), ("delay", .double(seconds(delay))),
        ("reason", .string(reason)),
      ]
    case .exited:
      return
    case .serviceReady:
      members.append(("event", .string("service_ready")))
    case .serviceStopping:
      members.append(("event", .string("service_stopping")))
    case .runFinished(let summary):
      members.append(("event", .string("run_finished")))
      for state in TaskState.allCases where state.isFinal {
        members.append((state.rawValue, .int(summary.counts[state] ?? 0)))
      }
      members += [("duration", .double(seconds(summary.duration))), ("exit_code", .int(Int(summary.exitCode)))]
      if let signal = summary.interruption {
        members.append(("interrupted_by", .string(signalName(signal))))
      }
      if let deadlock = summary.deadlock { members.append(("deadlock", .string(deadlock))) }
    }
    write(.object(members))
  }

  package func output(task: Int, stream: OutputStreamKind, lines: OutputLines, time: Duration) {
    lines.forEach { line in
      write(
        .object([
          ("v", .int(Self.schemaVersion)), ("time", .double(seconds(time))), ("task", .string(names[task])),
          ("event", .string("output")), ("stream", .string(stream == .stdout ? "stdout" : "stderr")),
          ("line", .string(String(decoding: line, as: UTF8.self))),
        ]))
    }
  }

  func seconds(_ duration: Duration) -> Double {
    let (whole, attoseconds) = duration.components
    return (Double(whole) + Double(attoseconds / 1_000_000_000_000) / 1_000_000).rounded(toPlaces: 6)
  }

  private func write(_ value: JSONValue) {
    var line = value.serialized() + "\n"
    let failure: Int32? = file.withLock { file in
      guard file.descriptor >= 0, file.failure == nil else { return nil }
      file.failure = line.withUTF8 { PrintMask.withMasked($0) { Self.writeAll($0, to: file.descriptor) } }
      return file.failure
    }
    if let failure { warn(failure) }
  }

  /// Writes every byte; returns the errno that stopped it, or `nil`.
  private static func writeAll(_ bytes: UnsafeBufferPointer<UInt8>, to descriptor: Int32) -> Int32? {
    guard var pointer = bytes.baseAddress else { return nil }
    var remaining = bytes.count
    while remaining > 0 {
      let written = Glibc.write(descriptor, pointer, remaining)
      if written < 0 {
        if errno == EINTR { continue }
        return errno
      }
      pointer += written
      remaining -= written
    }
    return nil
  }

  private func warn(_ failure: Int32) {
    DiagnosticPrinter().print([
      Diagnostic(
        .warning,
        "cannot write the events file '\(path)': \(FileReader.describe(failure)); later events are not logged")
    ])
  }
}

extension Double {
  func rounded(toPlaces places: Int) -> Double {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    return (self * scale).rounded() / scale
  }
}
