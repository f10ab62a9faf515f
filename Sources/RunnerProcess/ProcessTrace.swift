import CRunnerShim
import Glibc
import Synchronization

/// What the processes of one task did to files, seen by runner's tracer (a seccomp filter
/// each of them inherits, and a thread of runner's that reads each file system call: see the
/// shim's `tracer.c`). A `ProcessSpec` that carries one is spawned traced; `finish` ends the
/// recording and says what was seen.
package final class ProcessTrace: Sendable {
  /// What a call did to a path.
  package enum Kind: UInt8, Sendable {
    /// Opened for reading.
    case read = 0x72  // r
    /// Created, truncated, opened for writing, renamed or linked to.
    case written = 0x77  // w
    /// Looked up: `stat`, `access`, `readlink`, a directory opened.
    case probed = 0x70  // p
    /// Listed (`getdents`).
    case listed = 0x64  // d
    /// Run (`execve`).
    case executed = 0x78  // x
    /// Unlinked, removed, or renamed away.
    case removed = 0x75  // u
    /// A directory made.
    case madeDirectory = 0x6D  // m
  }

  package struct Access: Sendable, Hashable {
    package var kind: Kind
    /// Absolute, as the process named it from its directory (no `..` or links resolved).
    package var path: String
  }

  /// Everything seen, in order, and whether that is everything.
  package struct Log: Sendable {
    package var accesses: [Access] = []
    /// Why the log may miss calls: a process that could not be traced, a call that could not
    /// be read; nil when it holds every call.
    package var problem: String?

    package var isComplete: Bool { problem == nil }
  }

  private struct State {
    var handles: [Int32] = []
    var problem: String?
  }

  private let state = Mutex(State())

  package init() {}

  /// Why tracing cannot work here; nil when it can.
  package static var unavailability: String? {
    let code = runner_trace_available()
    return code == 0
      ? nil : "it needs Linux 5.9 or later with seccomp user notification (\(String(cString: strerror(-code))))"
  }

  /// A spawn made for this trace: its tracer handle, or why the process runs untraced.
  func attach(handle: Int32, error: Int32) {
    state.withLock { state in
      if handle >= 0 {
        state.handles.append(handle)
      } else if state.problem == nil {
        let why =
          error == EBUSY ? "runner already traces the process that started it" : String(cString: strerror(error))
        state.problem = "a process could not be traced (\(why))"
      }
    }
  }

  /// Ends the recording (processes still running go on, unrecorded, until the run ends them
  /// with its leftovers) and returns what was seen.
  package func finish() -> Log {
    let (handles, problem) = state.withLock { state in
      defer { state.handles = [] }
      return (state.handles, state.problem)
    }
    var log = Log(problem: problem)
    for handle in handles {
      var records: UnsafeMutablePointer<CChar>?
      var incomplete: Int32 = 0
      let length = runner_trace_take(handle, &records, &incomplete)
      if incomplete != 0, log.problem == nil {
        log.problem = "a call could not be read (a 32-bit program, or a path runner could not resolve)"
      }
      guard length > 0, let records else { continue }
      defer { free(records) }
      UnsafeRawBufferPointer(start: records, count: length).withMemoryRebound(to: UInt8.self) { bytes in
        var start = 0
        while start < bytes.count {
          guard let end = bytes[start...].firstIndex(of: 0) else { break }
          Self.append(record: bytes[start..<end], to: &log)
          start = end + 1
        }
      }
    }
    return log
  }

  /// One record, `kind path` (its NUL aside), added to `log`.
  static func append<Bytes: Collection<UInt8>>(record: Bytes, to log: inout Log) {
    guard let first = record.first, let kind = Kind(rawValue: first) else { return }
    // A name that is not UTF-8 could not be named again: the log would miss it.
    if let path = String(validating: record.dropFirst(), as: UTF8.self) {
      log.accesses.append(Access(kind: kind, path: path))
    } else if log.problem == nil {
      log.problem = "a file name that is not UTF-8"
    }
  }
}

extension ProcessTrace: Equatable {
  package static func == (left: ProcessTrace, right: ProcessTrace) -> Bool { left === right }
}
