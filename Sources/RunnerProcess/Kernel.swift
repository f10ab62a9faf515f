import CRunnerShim
import Glibc

/// The system calls the process reactor needs, and the others runner makes through the C shim
/// (`CRunnerShim`, which only this target imports).
///
/// Functions return the shim's raw results (a value, or `-errno`) where the caller branches on them.
package enum Kernel {
  static let sigterm = SIGTERM
  static let sigkill = SIGKILL
  static let sigtstp = SIGTSTP
  static let sigcont = SIGCONT

  /// Takes the terminal's foreground back after an interactive task.
  static func reclaimTerminal() { runner_reclaim_terminal() }

  /// Stops runner (SIGSTOP cannot be caught); returns when it is continued.
  static func stopSelf() { raise(SIGSTOP) }
  static let eagain = EAGAIN
  static let enoent = ENOENT
  static let eacces = EACCES
  static let enoexec = ENOEXEC
  static let etxtbsy = ETXTBSY
  static let esrch = ESRCH

  /// Out of file descriptors (the process's or the system's) or processes: what ends when
  /// another child ends.
  static func isExhaustion(_ code: Int32) -> Bool {
    code == EMFILE || code == ENFILE || code == EAGAIN
  }

  /// A started child: its pid (also its process group) and runner's ends of its pipes.
  struct Child {
    var pid: Int32
    var pidfd: Int32
    var stdout: Int32
    var stderr: Int32
  }

  enum SpawnStage {
    case parent, setup, workingDirectory, exec
  }

  /// How a child is started.
  enum SpawnMethod: Sendable {
    /// clone(CLONE_VM | CLONE_VFORK); fork in ThreadSanitizer builds, which cannot follow it.
    case standard
    /// Always fork: the sanitizer builds' path, for tests of it in any build.
    case fork
  }

  /// Starts `plan` in a new process group with PDEATHSIG tied to the calling thread, listed
  /// with the orphan watchdog.
  static func spawn(_ plan: SpawnPlan, devnull: Int32, method: SpawnMethod = .standard) -> Result<Child, SpawnFailure> {
    var child = runner_child()
    let rc: Int32
    let inherited = plan.spec.inherited
    runner_spawn_inherit(inherited.first ?? -1, inherited.dropFirst().first ?? -1)
    if plan.spec.trace != nil || plan.spec.sandbox != nil {
      let trace = plan.spec.trace ?? ProcessTrace()
      var sandbox: Int32 = -1
      if let rules = plan.spec.sandbox {
        sandbox = rules.ruleset()
        if sandbox < 0 { return .failure(SpawnFailure(stage: .parent, errno: -sandbox)) }
      }
      defer { if sandbox >= 0 { close(sandbox) } }
      var handle: Int32 = -1
      var error: Int32 = 0
      rc = runner_traced_spawn(
        plan.path, plan.argv, plan.envp, plan.workingDirectory, devnull, sandbox, &child, &handle, &error)
      // A spawn that failed runs nothing to trace (and fails its task).
      if rc == 0 || handle >= 0 { trace.attach(handle: handle, error: error) }
    } else {
      let start = method == .fork ? runner_fork_spawn : runner_spawn
      rc = start(plan.path, plan.argv, plan.envp, plan.workingDirectory, devnull, &child)
    }
    if rc == 0 {
      return .success(Child(pid: child.pid, pidfd: child.pidfd, stdout: child.stdout_fd, stderr: child.stderr_fd))
    }
    let stage: SpawnStage
    switch Int(child.stage) {
    case Int(RUNNER_STAGE_SETUP.rawValue): stage = .setup
    case Int(RUNNER_STAGE_CHDIR.rawValue): stage = .workingDirectory
    case Int(RUNNER_STAGE_EXEC.rawValue): stage = .exec
    default: stage = .parent
    }
    return .failure(SpawnFailure(stage: stage, errno: child.error))
  }

  /// Does what a spawn that stalled does: the calling thread's next spawns start their child
  /// on the thread's CPU (spawn_cpu.c in the shim).
  static func noteSpawnStalled() { runner_spawn_stalled() }

  /// Whether the calling thread's last `.standard` spawn started its child on the thread's
  /// CPU; nil in builds that always fork (sanitizers), which never do.
  static var lastSpawnWasPinned: Bool? {
    let pinned = runner_last_spawn_pinned()
    return pinned < 0 ? nil : pinned == 1
  }

  struct SpawnFailure: Error {
    var stage: SpawnStage
    var errno: Int32
  }

  /// Lets the calling thread, the one that spawns, take SIGCHLD, so the kernel drops each
  /// child's exit signal instead of waking runner's main thread with it.
  static func acceptChildExits() { runner_accept_child_exits() }

  /// Reaps an exited child without blocking; `nil` while it still runs or on error.
  static func reap(pidfd: Int32) -> ProcessOutcome? {
    var kind: Int32 = 0
    var value: Int32 = 0
    guard runner_reap(pidfd, &kind, &value) == 1 else { return nil }
    return kind == 1 ? .exited(value) : .signaled(value)
  }

  /// Sends `signal` to process group `pgid`; `signal == 0` only probes. Returns 0 or `-errno`.
  @discardableResult
  static func killGroup(_ pgid: Int32, _ signal: Int32) -> Int32 {
    runner_kill_group(pgid, signal)
  }

  static func epollCreate() -> Int32 { runner_epoll_create() }

  @discardableResult
  static func epollAdd(_ epoll: Int32, fd: Int32, token: UInt64) -> Int32 {
    runner_epoll_add(epoll, fd, token)
  }

  /// A pipe's capacity in bytes; 0 if unknown.
  static func pipeCapacity(_ fd: Int32) -> Int { Int(runner_pipe_capacity(fd)) }

  @discardableResult
  static func epollRemove(_ epoll: Int32, fd: Int32) -> Int32 { runner_epoll_remove(epoll, fd) }

  /// - Parameter timeoutNanoseconds: -1 waits until an event.
  static func epollWait(
    _ epoll: Int32, tokens: UnsafeMutablePointer<UInt64>, events: UnsafeMutablePointer<UInt32>, max: Int32,
    timeoutNanoseconds: Int64
  ) -> Int32 {
    runner_epoll_wait(epoll, tokens, events, max, timeoutNanoseconds)
  }

  static func eventFD() -> Int32 { runner_eventfd_create() }
  static func signal(eventFD fd: Int32) { runner_eventfd_signal(fd) }
  static func drain(eventFD fd: Int32) { runner_eventfd_drain(fd) }
  static func openDevNull() -> Int32 { runner_open_devnull() }

  /// Bytes read, 0 at end of file, or `-errno` (`-EAGAIN` when the pipe is empty).
  static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    runner_read(fd, buffer.baseAddress, UInt(buffer.count))
  }

  static func close(_ fd: Int32) { runner_close(fd) }

  /// Monotonic clock in nanoseconds.
  static func now() -> Int64 { runner_now_ns() }

  static func isExecutable(_ path: String) -> Bool { runner_is_executable(path) != 0 }

  /// The orphan watchdog's pid, starting it if needed; -1 when it could not be started.
  static func orphanWatchdogPID() -> Int32 { runner_watchdog_pid() }

  /// The size a chatty task's stdout pipe is given (`growPipe`); 0 keeps the kernel's default.
  package static func setPipeSize(_ bytes: Int32) { runner_set_pipe_size(bytes) }

  /// The size of a new pipe on Linux.
  static let defaultPipeSize = 64 << 10

  /// Gives the pipe at `fd` the size `setPipeSize` set (`F_SETPIPE_SZ`); false when there is
  /// none or the kernel refused.
  static func growPipe(_ fd: Int32) -> Bool { runner_grow_pipe(fd) == 1 }

  /// An anonymous file in memory (`memfd_create`), or -1.
  package static func memoryFile(named name: String) -> Int32 { runner_memfd(name) }

  /// Bounds the allocator's arenas and caches for a process of many threads.
  package static func tuneAllocator() { runner_tune_malloc() }

  /// Raises the soft limit on open files to the hard one; the new limit, or -1.
  @discardableResult
  package static func raiseDescriptorLimit() -> Int { Int(runner_raise_fd_limit()) }

  /// Open file descriptors of this process.
  static func openFileDescriptorCount() -> Int { Int(runner_count_open_fds()) }

  static func describe(errno: Int32) -> String {
    guard let text = strerror(errno) else { return "errno \(errno)" }
    return String(cString: text).lowercased()
  }
}
