import Glibc
import RunnerBasics
import RunnerModel
import RunnerProcess

/// `--output grouped|quiet`: each running task's output, kept until the task ends.
///
/// In memory (a memfd) while the run's spools fit `memoryBudget`, then in an unlinked file in
/// the scratch directory: a task may print gigabytes, and writing them through a disk file
/// system took three times as long as through memory (Benchmarks/README.md, "Output at full
/// speed"). A spool in memory that would pass the budget moves to a file first, keeping its
/// bytes and their order.
struct OutputSpool: ~Copyable {
  struct Spool {
    var descriptor: Int32
    var inMemory: Bool
    var size: Int64
  }

  /// What became of bytes given to `write`.
  enum Outcome {
    case spooled
    /// The task has no spool (it could not be made or written earlier): print them now.
    case direct
    /// The spool failed now (`errno`): print the first `held` bytes of `descriptor` (then
    /// close it), then these bytes. The task has no spool from now on.
    case failed(Int32, descriptor: Int32, held: Int64)
  }

  let directory: String
  let memoryBudget: Int64
  private var spools: [Int: Spool] = [:]
  private var unspooled: Set<Int> = []
  private var inMemory: Int64 = 0

  init(directory: String, memoryBudget: Int64) {
    self.directory = directory
    self.memoryBudget = memoryBudget
  }

  /// An eighth of the memory runner may use (the machine's, or its cgroup's limit if lower),
  /// at most 2 GiB.
  static func defaultMemoryBudget() -> Int64 {
    var limit = Int64(sysconf(Int32(_SC_PHYS_PAGES))) * Int64(sysconf(Int32(_SC_PAGESIZE)))
    if let bytes = try? FileReader.read("/sys/fs/cgroup/memory.max"),
      let cgroup = Int64(String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)), cgroup > 0
    {
      limit = min(limit, cgroup)
    }
    return max(0, min(limit / 8, 2 << 30))
  }

  mutating func write(_ task: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Outcome {
    guard !unspooled.contains(task) else { return .direct }
    var spool: Spool
    if let open = spools[task] {
      spool = open
    } else {
      switch create(task, memory: Int64(bytes.count) <= memoryBudget - inMemory) {
      case .success(let made): spool = made
      case .failure(let error):
        unspooled.insert(task)
        return .failed(error.code, descriptor: -1, held: 0)
      }
    }
    if spool.inMemory, inMemory + Int64(bytes.count) > memoryBudget, let error = spill(task, &spool) {
      return fail(task, spool, error)
    }
    let (written, error) = Self.writeAll(bytes, to: spool.descriptor)
    // Bytes of a failed write are printed with the rest of it: the spool holds what came before.
    if let error { return fail(task, spool, error) }
    spool.size += Int64(written)
    if spool.inMemory { inMemory += Int64(written) }
    spools[task] = spool
    return .spooled
  }

  /// The tasks with a spool.
  var heldTasks: [Int] { spools.keys.sorted() }

  /// Ends a task's spool: its descriptor (read it from offset 0 up to `size`, then close it).
  mutating func take(_ task: Int) -> Spool? {
    unspooled.remove(task)
    guard let spool = spools.removeValue(forKey: task) else { return nil }
    if spool.inMemory { inMemory -= spool.size }
    return spool
  }

  private mutating func fail(_ task: Int, _ spool: Spool, _ error: Int32) -> Outcome {
    spools[task] = nil
    if spool.inMemory { inMemory -= spool.size }
    unspooled.insert(task)
    return .failed(error, descriptor: spool.descriptor, held: spool.size)
  }

  struct Errno: Error { var code: Int32 }

  private func create(_ task: Int, memory: Bool) -> Result<Spool, Errno> {
    if memory {
      let descriptor = Kernel.memoryFile(named: "runner-spool")
      if descriptor >= 0 { return .success(Spool(descriptor: descriptor, inMemory: true, size: 0)) }
    }
    // In the run's own scratch directory; the descriptor keeps the file, so nothing is left
    // behind even on a crash.
    let path = "\(directory)/\(task).spool"
    let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return .failure(Errno(code: errno)) }
    unlink(path)
    return .success(Spool(descriptor: descriptor, inMemory: false, size: 0))
  }

  /// Moves a spool from memory to a file; the errno of a failure (the spool is left as it was).
  private mutating func spill(_ task: Int, _ spool: inout Spool) -> Int32? {
    let file: Spool
    switch create(task, memory: false) {
    case .success(let made): file = made
    case .failure(let error): return error.code
    }
    var offset: off_t = 0
    while offset < off_t(spool.size) {
      let sent = sendfile(file.descriptor, spool.descriptor, &offset, Int(spool.size) - offset)
      if sent < 0, errno == EINTR { continue }
      if sent <= 0 {
        let error = sent < 0 ? errno : EIO
        close(file.descriptor)
        return error
      }
    }
    close(spool.descriptor)
    inMemory -= spool.size
    spool = Spool(descriptor: file.descriptor, inMemory: false, size: spool.size)
    return nil
  }

  /// Prints a spool's bytes to `descriptor` after what `Terminal` holds: the kernel copies
  /// (`sendfile`); a descriptor sendfile cannot write to gets them by read and write.
  static func print(_ spool: Spool, to descriptor: Int32) {
    Terminal.releaseHeld()
    let length = off_t(spool.size)
    var offset: off_t = 0
    while offset < length {
      let sent = sendfile(descriptor, spool.descriptor, &offset, Int(min(length - offset, 1 << 30)))
      if sent < 0, errno == EINTR || errno == EAGAIN { continue }
      if sent <= 0 { break }
    }
    guard offset < length else { return }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while offset < length {
      let want = Int(min(off_t(chunk.count), length - offset))
      let count = chunk.withUnsafeMutableBytes { pread(spool.descriptor, $0.baseAddress, want, offset) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      chunk.withUnsafeBufferPointer { Terminal.write(UnsafeBufferPointer(rebasing: $0[..<count]), to: descriptor) }
      offset += off_t(count)
    }
  }

  /// Prints a spool of whole lines with `head` before each, after what `Terminal` holds: a
  /// mebibyte at a time, cut at its last newline (a longer line grows the piece). For a task
  /// of short lines, grouped and quiet output spool the lines as the task wrote them and
  /// prefix them here (`ConsoleReporter.spoolsRaw`): the spool holds the task's own bytes, not
  /// the prefix's many times over.
  static func printLines(_ spool: Spool, head: [UInt8], to descriptor: Int32, using buffer: inout ByteBuffer) {
    Terminal.releaseHeld()
    let length = off_t(spool.size)
    var piece = [UInt8](repeating: 0, count: Int(min(length, 1 << 20)))
    var held = 0  // bytes of `piece` read and not printed yet
    func emit(upTo end: Int) {
      buffer.removeAll()
      piece.withUnsafeBytes { bytes in
        head.withUnsafeBytes { buffer.appendLines(UnsafeRawBufferPointer(rebasing: bytes[..<end]), eachAfter: $0) }
      }
      buffer.withBytes { Terminal.write($0, to: descriptor) }
      piece.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: $0.baseAddress! + end, byteCount: held - end) }
      held -= end
    }
    var offset: off_t = 0
    while offset < length {
      if held == piece.count { piece += [UInt8](repeating: 0, count: piece.count) }
      let want = Int(min(off_t(piece.count - held), length - offset))
      let count = piece.withUnsafeMutableBytes { pread(spool.descriptor, $0.baseAddress! + held, want, offset) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      offset += off_t(count)
      held += count
      if let last = piece[..<held].lastIndex(of: 0x0A) { emit(upTo: last + 1) }
    }
    // A spool ends in a newline; a file cut short may not, and the next line must not join it.
    if held > 0 {
      if piece[held - 1] != 0x0A {
        if held == piece.count { piece.append(0x0A) } else { piece[held] = 0x0A }
        held += 1
      }
      emit(upTo: held)
    }
  }

  /// Writes every byte; how many were written and the errno that stopped it, if any.
  static func writeAll(_ bytes: UnsafeBufferPointer<UInt8>, to fd: Int32) -> (Int, Int32?) {
    guard let base = bytes.baseAddress else { return (0, nil) }
    var done = 0
    while done < bytes.count {
      let written = Glibc.write(fd, base + done, bytes.count - done)
      if written < 0 {
        if errno == EINTR { continue }
        return (done, errno)
      }
      done += written
    }
    return (done, nil)
  }
}
