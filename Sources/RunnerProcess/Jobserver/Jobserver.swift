import CRunnerShim
import Glibc
import Synchronization

/// runner's `-j` as a GNU make jobserver: one budget of slots for the tasks runner starts and
/// for the jobs their tools (make, ninja, cargo) start beside them.
///
/// A task holds one slot while it runs (its tools' first job: make's "implicit" one). Each
/// task that asks gets a pool of its own, a fifo: the slots runner lends it are bytes in it,
/// which its tools take (read) and give back (write). When the task ends, all that was lent
/// to it comes back, even tokens a killed make never wrote back or a server it left behind
/// keeps: a leak ends with the task that made it. Slots go to the scheduler first: it lends
/// only what no ready task can use (`lend`), and takes back lent tokens no tool holds.
///
/// An ended task's pool, emptied, is kept for the next task that asks for one of its form (up
/// to `jobs` of them): making and removing one cost a spawn-bound task about a tenth of its
/// time. Not when a process outlived its task meanwhile (`leftBehind`): one that holds the pool
/// could write tokens into it that were never lent, and the next task's tools would take them.
package final class Jobserver: JobSlots {
  package let jobs: Int

  private struct Pool {
    /// The fifo's, for the fifo form; nil for a pipe.
    let path: String?
    /// Runner's own end: read and write, non-blocking.
    let descriptor: Int32
    /// The task's processes' ends for the descriptor form, or -1.
    var inherited: [Int32]
    /// Tokens written into the fifo and not taken back since.
    var lent = 0
    /// A token waited in it at the last look (`lendSpares`).
    var idle = false
    /// The look at which it was last given a token.
    var offered = 0
  }

  private struct State {
    var free: Int
    var pools: [Int32: Pool] = [:]
    /// Ended tasks' pools, empty, for the next tasks: fifos and pipes.
    var idle: (fifos: [Pool], pipes: [Pool]) = ([], [])
    /// `close` ran: a task that ends after keeps nothing.
    var closed = false
    var directory: String?
    /// The directory, open and locked (`flock`) for as long as it is in use: the kernel drops
    /// the lock when runner dies, which is how another runner tells an orphan.
    var directoryLock: Int32 = -1
    var made = 0
    /// Descriptors the pools hold.
    var descriptors = 0
    /// How many times `lendSpares` looked.
    var looks = 0
  }

  private let state: Mutex<State>
  /// Where the fifos' directory may go, best first.
  private let temporaryDirectories: [String]
  private let watcher = SlotWatcher()
  /// The soft limit on open files when the server was made.
  private let descriptorLimit: Int

  /// - Parameters:
  ///   - jobs: the run's `-j`.
  ///   - temporaryDirectories: where the fifos' directory may be made, best first (a tmpfs,
  ///     then `$TMPDIR`).
  package init(jobs: Int, temporaryDirectories: [String]) {
    self.jobs = max(1, jobs)
    self.temporaryDirectories = temporaryDirectories
    var limit = rlimit()
    descriptorLimit =
      getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(clamping: limit.rlim_cur) : 1024
    state = Mutex(State(free: max(1, jobs)))
  }

  deinit { watcher.close() }

  package func take() -> Bool {
    state.withLock { state in
      if state.free > 0 {
        state.free -= 1
        return true
      }
      for (descriptor, pool) in state.pools where pool.lent > 0 && Self.readToken(descriptor) != nil {
        state.pools[descriptor]?.lent -= 1
        return true
      }
      return false
    }
  }

  package func give() {
    state.withLock { $0.free += 1 }
    watcher.wake()
  }

  package func lend() {
    if lendSpares() { watcher.startTicking { [weak self] in self?.lendSpares(ticking: true) ?? false } }
  }

  /// Hands slots to the pools whose tools may want them; again at every tick while any slot is
  /// free or lent, so slots go where tools take them rather than sit where nothing reads them:
  /// - a free slot goes as a spare to each pool whose tools took all they were lent, those that
  ///   took some first, then the one looked at longest ago; but not at a tick while the
  ///   scheduler waits for a slot (slots go to the scheduler first);
  /// - a spare that sat untaken since the last look moves to such a pool that got none and
  ///   whose tools took some, or that was never offered one (so it does not bounce between
  ///   tasks that run no tool that reads it).
  /// Returns whether to look again: while a slot is free, or lent with another pool to move to.
  private func lendSpares(ticking: Bool = false) -> Bool {
    let schedulerWaits = ticking && watcher.hasWaiters
    return state.withLock { state in
      guard !state.pools.isEmpty else { return false }
      state.looks += 1
      var waiting = state.pools.mapValues { max(0, Int(runner_pipe_count($0.descriptor))) }
      // A tool that wrote back more than it took: the extra tokens were never lent.
      for (descriptor, pool) in state.pools where waiting[descriptor]! > pool.lent {
        for _ in pool.lent..<waiting[descriptor]! { _ = Self.readToken(descriptor) }
        waiting[descriptor] = pool.lent
      }
      let hungry = state.pools.values.filter { waiting[$0.descriptor]! == 0 }.sorted {
        ($0.lent == 0 ? 1 : 0, $0.offered, $0.descriptor) < ($1.lent == 0 ? 1 : 0, $1.offered, $1.descriptor)
      }
      var idle = state.pools.values.filter { $0.idle && waiting[$0.descriptor]! > 0 }.map(\.descriptor).sorted()
      for pool in hungry {
        let target = pool.descriptor
        if state.free == 0 || schedulerWaits {
          guard pool.lent > 0 || pool.offered == 0, let source = idle.popLast(), Self.readToken(source) != nil
          else { continue }
          state.pools[source]?.lent -= 1
          waiting[source]! -= 1
          state.free += 1
        }
        var token = UInt8(ascii: "+")
        guard write(target, &token, 1) == 1 else { break }
        state.pools[target]?.lent += 1
        state.pools[target]?.offered = state.looks
        waiting[target]! += 1
        state.free -= 1
      }
      for descriptor in state.pools.keys { state.pools[descriptor]?.idle = waiting[descriptor]! > 0 }
      return state.free > 0 || (state.pools.count > 1 && state.pools.values.contains { $0.lent > 0 })
    }
  }

  package func waitForSlot() async {
    await watcher.wait(
      until: {
        self.state.withLock { state in
          state.free > 0 || state.pools.values.contains { $0.lent > 0 && runner_pipe_count($0.descriptor) > 0 }
        }
      },
      watching: { self.state.withLock { $0.pools.values.filter { $0.lent > 0 }.map(\.descriptor) } })
  }

  package func grant(_ style: JobGrant.Style) throws(JobserverError) -> JobGrant? {
    let pool: Pool
    if let kept = takeIdle(style) { pool = kept } else { pool = try makePool(style) }
    lend()
    let auth: MakeFlags.Auth =
      pool.path.map { .fifo($0) } ?? .descriptors(read: pool.inherited[0], write: pool.inherited[1])
    return JobGrant(auth: auth, inherited: pool.inherited, pool: pool.descriptor, jobs: jobs)
  }

  /// An ended task's pool of `style`, now the asking task's; nil when none is kept.
  private func takeIdle(_ style: JobGrant.Style) -> Pool? {
    state.withLock { state in
      guard let pool = style == .fifo ? state.idle.fifos.popLast() : state.idle.pipes.popLast() else { return nil }
      state.pools[pool.descriptor] = pool
      return pool
    }
  }

  /// A new pool, the asking task's.
  private func makePool(_ style: JobGrant.Style) throws(JobserverError) -> Pool {
    // Pools may hold a quarter of the descriptors runner may open: the rest are for the
    // tasks' own pipes, so that a spawn waits for descriptors rather than fails. Idle pools
    // give theirs up first.
    let needed = style == .fifo ? 1 : 3
    var dropped: [Pool] = []
    let room = state.withLock { state -> Bool in
      while state.descriptors + needed > descriptorLimit / 4,
        let idle = state.idle.fifos.popLast() ?? state.idle.pipes.popLast()
      {
        state.descriptors -= 1 + idle.inherited.count
        dropped.append(idle)
      }
      guard state.descriptors + needed <= descriptorLimit / 4 else { return false }
      state.descriptors += needed
      return true
    }
    // Closed before the new pool is opened, so that their descriptors are free for it.
    for pool in dropped { Self.remove(pool) }
    guard room else { throw JobserverError(description: "jobserver: too many open files", isExhaustion: true) }
    let pool: Pool
    do {
      pool = try style == .fifo ? makeFifo() : Self.makePipe()
    } catch {
      state.withLock { $0.descriptors -= needed }
      throw error
    }
    state.withLock { $0.pools[pool.descriptor] = pool }
    return pool
  }

  /// A fifo in runner's private directory (on a tmpfs when there is one: a fifo made and
  /// removed on a journalled disk costs a task 0.1 ms).
  private func makeFifo() throws(JobserverError) -> Pool {
    let (path, made) = try state.withLock { state throws(JobserverError) -> (String, String?) in
      var made: String?
      if state.directory == nil {
        let (directory, lock) = try makeDirectory()
        state.directory = directory
        state.directoryLock = lock
        made = directory
      }
      state.made += 1
      return ("\(state.directory!)/\(state.made)", made)
    }
    if let made { Self.removeOrphans(in: String(made[..<made.lastIndex(of: "/")!])) }
    guard mkfifo(path, 0o600) == 0 else { throw Self.failure("cannot make the fifo \(path)") }
    let own = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
    guard own >= 0 else {
      let error = Self.failure("cannot open the fifo \(path)")
      unlink(path)
      throw error
    }
    return Pool(path: path, descriptor: own, inherited: [])
  }

  /// A pipe, for the descriptor form: its two ends go to the task's processes (blocking, as
  /// make wants them); runner reads and writes through a description of its own, non-blocking.
  private static func makePipe() throws(JobserverError) -> Pool {
    var ends: [Int32] = [-1, -1]
    let made = runner_pipe(&ends)
    guard made == 0 else {
      errno = -made
      throw failure("cannot make a pipe")
    }
    let own = open("/proc/self/fd/\(ends[0])", O_RDWR | O_NONBLOCK | O_CLOEXEC)
    guard own >= 0 else {
      let error = failure("cannot reopen its pipe")
      Glibc.close(ends[0])
      Glibc.close(ends[1])
      throw error
    }
    return Pool(path: nil, descriptor: own, inherited: ends)
  }

  package func end(_ grant: JobGrant, leftBehind: Bool) {
    guard let descriptor = grant.pool else { return }
    let pool = state.withLock { state -> Pool? in
      guard let pool = state.pools.removeValue(forKey: descriptor) else { return nil }
      state.free += pool.lent
      return pool
    }
    guard var pool else { return }
    // Emptied (what its tools left in it came back above), then kept for the next task.
    let emptied = !leftBehind && Self.drain(pool.descriptor)
    pool.lent = 0
    pool.idle = false
    pool.offered = 0
    let kept = state.withLock { state in
      let fifo = pool.path != nil
      guard emptied, !state.closed, (fifo ? state.idle.fifos : state.idle.pipes).count < jobs else {
        if !state.closed { state.descriptors -= 1 + pool.inherited.count }
        return false
      }
      if fifo { state.idle.fifos.append(pool) } else { state.idle.pipes.append(pool) }
      return true
    }
    if !kept { Self.remove(pool) }
    watcher.wake()
  }

  /// Reads the tokens a pool holds (its descriptor does not block): true when it is empty
  /// after, false when tokens still came (a process writing into it: it is not kept).
  private static func drain(_ descriptor: Int32) -> Bool {
    var tokens = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
    // 64 tokens a read: up to 4 096, more than any -j lends.
    for _ in 0..<64 {
      if withUnsafeMutableBytes(of: &tokens, { read(descriptor, $0.baseAddress, $0.count) }) <= 0 { return true }
    }
    return runner_pipe_count(descriptor) == 0
  }

  package func close() {
    let (pools, directory, lock) = state.withLock { state in
      defer {
        state.free += state.pools.values.reduce(0) { $0 + $1.lent }
        state.pools = [:]
        state.idle = ([], [])
        state.descriptors = 0
        state.closed = true
        state.directory = nil
        state.directoryLock = -1
      }
      return (Array(state.pools.values) + state.idle.fifos + state.idle.pipes, state.directory, state.directoryLock)
    }
    for pool in pools { Self.remove(pool) }
    if let directory { rmdir(directory) }
    if lock >= 0 { Glibc.close(lock) }
    watcher.close()
  }

  /// The slots free and lent, and the tokens waiting in pools: for tests.
  package var counts: (free: Int, lent: Int) {
    state.withLock { ($0.free, $0.pools.values.reduce(0) { $0 + $1.lent }) }
  }

  /// A private directory for the fifos, and its lock.
  private func makeDirectory() throws(JobserverError) -> (String, Int32) {
    // A space in the path would split MAKEFLAGS' word.
    for directory in temporaryDirectories where !directory.contains(where: { $0 == " " || $0 == "\t" }) {
      var template = Array("\(directory)/runner-jobs-\(getpid())-XXXXXX".utf8CString)
      guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { continue }
      let path = String(cString: made)
      let lock = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      if lock >= 0 { _ = flock(lock, LOCK_EX) }
      return (path, lock)
    }
    throw Self.failure("cannot make a directory for its fifos in \(temporaryDirectories.last ?? "/tmp")")
  }

  /// Removes the fifo directories of runners that were killed (SIGKILL leaves them): this
  /// user's `runner-jobs-PID-XXXXXX` directories that no runner holds locked. Only fifos are
  /// removed from them, and nothing is followed through a symbolic link.
  private static func removeOrphans(in parent: String) {
    let parentDescriptor = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard parentDescriptor >= 0 else { return }
    defer { Glibc.close(parentDescriptor) }
    for name in entries(of: parentDescriptor) where isFifoDirectoryName(name) {
      let directory = openat(parentDescriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      guard directory >= 0 else { continue }
      defer { Glibc.close(directory) }
      var status = stat()
      guard fstat(directory, &status) == 0, status.st_uid == geteuid(), flock(directory, LOCK_EX | LOCK_NB) == 0
      else { continue }
      for fifo in entries(of: directory) where !fifo.isEmpty && fifo.allSatisfy(\.isNumber) {
        var fifoStatus = stat()
        if fstatat(directory, fifo, &fifoStatus, AT_SYMLINK_NOFOLLOW) == 0, fifoStatus.st_mode & S_IFMT == S_IFIFO {
          unlinkat(directory, fifo, 0)
        }
      }
      unlinkat(parentDescriptor, name, AT_REMOVEDIR)
    }
  }

  /// `runner-jobs-PID-XXXXXX`, as `makeDirectory` names one.
  static func isFifoDirectoryName(_ name: String) -> Bool {
    let parts = name.split(separator: "-", omittingEmptySubsequences: false)
    return parts.count == 4 && parts[0] == "runner" && parts[1] == "jobs" && !parts[2].isEmpty
      && parts[2].allSatisfy(\.isNumber) && parts[3].count == 6 && parts[3].allSatisfy { $0.isLetter || $0.isNumber }
  }

  /// The names in the directory open at `descriptor` (left open), but `.` and `..`.
  private static func entries(of descriptor: Int32) -> [String] {
    guard let listing = fdopendir(dup(descriptor)) else { return [] }
    defer { closedir(listing) }
    var names: [String] = []
    while let entry = readdir(listing) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if name != ".", name != ".." { names.append(name) }
    }
    return names
  }

  private static func remove(_ pool: Pool) {
    if let path = pool.path { unlink(path) }
    Glibc.close(pool.descriptor)
    for descriptor in pool.inherited where descriptor >= 0 { Glibc.close(descriptor) }
  }

  /// One token from a non-blocking descriptor, or nil when none is there.
  static func readToken(_ descriptor: Int32) -> UInt8? {
    var token: UInt8 = 0
    return read(descriptor, &token, 1) == 1 ? token : nil
  }

  static func failure(_ what: String) -> JobserverError {
    let code = errno
    return JobserverError(
      description: "jobserver: \(what): \(String(cString: strerror(code)))",
      isExhaustion: code == EMFILE || code == ENFILE)
  }
}
