import Glibc
import Synchronization

/// runner as a jobserver's client: run by make (or anything serving a jobserver in
/// `MAKEFLAGS`), it takes its slots from that pool instead of its own `-j`. Its first task
/// runs in the slot the parent gave runner itself; each task beside it takes a token, given
/// back when the task ends. Its tasks' tools share the same pool, as a sub-make's do.
package final class JobClient: JobSlots {
  package let jobs: Int
  private let auth: MakeFlags.Auth
  /// As make wrote it, for the tasks.
  private let makeFlags: String
  /// Runner's own non-blocking description of the pool, to read tokens from.
  private let reader: Int32
  /// Where tokens go back.
  private let writer: Int32
  private struct State {
    var implicitFree = true
    /// The tokens taken, to give back the same bytes (make 4.4 reads meaning into some).
    var held: [UInt8] = []
  }
  private let state = Mutex(State())
  private let watcher = SlotWatcher()

  /// Opens the jobserver `makeFlags` names; nil, with why, when it cannot be used (descriptors
  /// closed by a make that did not take runner for a sub-make: the rule needs `+`).
  package static func connect(makeFlags: String, defaultJobs: Int) -> Result<JobClient, JobserverError>? {
    guard let auth = MakeFlags.auth(in: makeFlags) else { return nil }
    let jobs = MakeFlags.jobs(in: makeFlags) ?? defaultJobs
    switch auth {
    case .fifo(let path):
      let descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
      guard descriptor >= 0 else {
        return .failure(Jobserver.failure("cannot open the fifo \(path) that MAKEFLAGS names"))
      }
      return .success(JobClient(jobs: jobs, auth: auth, makeFlags: makeFlags, reader: descriptor, writer: descriptor))
    case .descriptors(let read, let write):
      guard openAtStart.withLock({ $0[read] == true && $0[write] == true }) else {
        return .failure(
          JobserverError(
            description:
              "the jobserver in MAKEFLAGS (descriptors \(read),\(write)) is not open here: make passes it only to a rule marked '+' or one that runs $(MAKE)"
          ))
      }
      // A description of its own, non-blocking, without touching the parent's (shared with
      // every other make in the tree).
      let reader = open("/proc/self/fd/\(read)", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
      guard reader >= 0 else { return .failure(Jobserver.failure("cannot reopen the jobserver's descriptor \(read)")) }
      return .success(JobClient(jobs: jobs, auth: auth, makeFlags: makeFlags, reader: reader, writer: write))
    }
  }

  /// Whether each descriptor `MAKEFLAGS` names was an open pipe when runner started, before it
  /// opened any of its own (one of which could take the number of a descriptor make closed).
  private static let openAtStart = Mutex<[Int32: Bool]>([:])

  /// Looks at the descriptors `MAKEFLAGS` names; first thing in `main`.
  package static func noteInheritedDescriptors() {
    guard let flags = getenv("MAKEFLAGS"),
      case .descriptors(let read, let write)? = MakeFlags.auth(in: String(cString: flags))
    else { return }
    // Both ends of one pipe (or fifo): two unrelated descriptors at those numbers are not make's.
    var readStatus = stat()
    var writeStatus = stat()
    let open =
      fstat(read, &readStatus) == 0 && fstat(write, &writeStatus) == 0 && readStatus.st_mode & S_IFMT == S_IFIFO
      && readStatus.st_ino == writeStatus.st_ino && readStatus.st_dev == writeStatus.st_dev
    // Passed on only to the tasks that get them (`ProcessSpec.inherited`).
    if open {
      _ = fcntl(read, F_SETFD, FD_CLOEXEC)
      _ = fcntl(write, F_SETFD, FD_CLOEXEC)
    }
    openAtStart.withLock { $0 = [read: open, write: open] }
  }

  private init(jobs: Int, auth: MakeFlags.Auth, makeFlags: String, reader: Int32, writer: Int32) {
    self.jobs = jobs
    self.auth = auth
    self.makeFlags = makeFlags
    self.reader = reader
    self.writer = writer
  }

  deinit {
    watcher.close()
    Glibc.close(reader)
  }

  package func take() -> Bool {
    state.withLock { state in
      if state.implicitFree {
        state.implicitFree = false
        return true
      }
      guard let token = Jobserver.readToken(reader) else { return false }
      state.held.append(token)
      return true
    }
  }

  package func give() {
    state.withLock { state in
      guard var token = state.held.popLast() else {
        state.implicitFree = true
        return
      }
      // A pipe of 64 KiB never fills with tokens: a failed write can only be a closed pool.
      _ = write(writer, &token, 1)
    }
    watcher.wake()
  }

  package func lend() {}

  package func waitForSlot() async {
    await watcher.wait(
      until: { self.state.withLock { $0.implicitFree } }, watching: { [reader] in [reader] })
  }

  package func grant(_ style: JobGrant.Style) throws(JobserverError) -> JobGrant? {
    // The parent's pool, as it named it: the task's tools are its clients too.
    switch auth {
    case .fifo: JobGrant(auth: auth, inherited: [], pool: nil, jobs: jobs, parentFlags: makeFlags)
    case .descriptors(let read, let write):
      JobGrant(auth: auth, inherited: [read, write], pool: nil, jobs: jobs, parentFlags: makeFlags)
    }
  }

  package func end(_ grant: JobGrant, leftBehind: Bool) {}

  /// Gives back what it still holds (a run that stopped with tasks running).
  package func close() {
    let held = state.withLock { state in
      defer { state.held = [] }
      return state.held
    }
    for var token in held { _ = write(writer, &token, 1) }
    watcher.close()
  }
}
