/// The reactor thread's record of one live child process.
final class RunningChild {
  let id: UInt64
  let pid: Int32
  let pidfd: Int32
  /// Runner's read ends, by `OutputStreamKind` index (0 stdout, 1 stderr); -1 once closed.
  var pipes: [Int32]
  var splitters: [LineSplitter]
  /// Bytes read so far, by stream.
  var delivered = [0, 0]
  /// Each pipe's capacity, asked once; -1 until then.
  private var capacities = [-1, -1]

  /// stdout's pipe was given the run's big size (`growStdoutIfChatty`), or asked to be.
  private var stdoutGrown = false

  func pipeCapacity(_ index: Int) -> Int {
    if capacities[index] < 0 { capacities[index] = Kernel.pipeCapacity(pipes[index]) }
    return capacities[index]
  }

  /// Gives stdout's pipe the run's big size once it has carried `Kernel.defaultPipeSize`: a
  /// chatty task writes on while runner sleeps, and a quiet one (most tasks) never pays the
  /// kernel for a pipe it does not fill.
  func growStdoutIfChatty() {
    guard !stdoutGrown, delivered[0] >= Kernel.defaultPipeSize, pipes[0] >= 0 else { return }
    stdoutGrown = true
    if Kernel.growPipe(pipes[0]) { capacities[0] = -1 }
  }
  let sink: any OutputLineSink
  let grace: Duration
  let ticket: JobTicket
  let continuation: UnsafeContinuation<Result<ProcessOutcome, SpawnError>, Never>
  var cancelled = false
  /// Holds the terminal's foreground until it ends.
  let interactive: Bool

  init(child: Kernel.Child, request: SpawnRequest) {
    id = request.ticket.id
    pid = child.pid
    pidfd = child.pidfd
    pipes = [child.stdout, child.stderr]
    splitters = [LineSplitter(stream: .stdout), LineSplitter(stream: .stderr)]
    sink = request.sink
    interactive = request.plan.spec.interactive
    grace = request.grace
    ticket = request.ticket
    continuation = request.continuation
  }

  /// Reads what one pipe holds. Returns false when the pipe is finished (EOF or error) and closed.
  ///
  /// - Parameter limit: stop after this many bytes even if more are waiting, so one chatty task
  ///   cannot starve the others (epoll reports the pipe again).
  @discardableResult
  func read(stream index: Int, buffer: UnsafeMutableRawBufferPointer, limit: Int) -> Bool {
    var total = 0
    while pipes[index] >= 0, total < limit {
      let count = Kernel.read(pipes[index], into: buffer)
      if count > 0 {
        splitters[index].feed(UnsafeRawBufferPointer(rebasing: buffer[..<count]), to: sink)
        total += count
        delivered[index] += count
        if count < buffer.count { return true }  // the pipe is empty now; skip the EAGAIN read
      } else if count == -Int(Kernel.eagain) {
        return true
      } else {
        closePipe(index)
        return false
      }
    }
    return pipes[index] >= 0
  }

  /// After the child exited: takes what the pipes hold right now, flushes partial lines, closes them.
  func drainAndClose(buffer: UnsafeMutableRawBufferPointer) {
    for index in pipes.indices where pipes[index] >= 0 {
      // Bounded: a background grandchild may still be writing, and must not keep us here.
      read(stream: index, buffer: buffer, limit: 4 << 20)
      closePipe(index)
    }
  }

  /// Flushes a partial last line and closes one pipe; nothing if it is closed already.
  func closePipe(_ index: Int) {
    guard pipes[index] >= 0 else { return }
    splitters[index].finish(to: sink)
    Kernel.close(pipes[index])
    pipes[index] = -1
  }
}
