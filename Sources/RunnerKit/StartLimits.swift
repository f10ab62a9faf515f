import Glibc
import RunnerBasics
import RunnerModel

extension Runner {
  /// Why runner cannot start under this process's limits on memory and processes, if it
  /// cannot: checked first thing, before runner starts a thread (then exit 2 with the cause).
  public static func startProblem() -> String? {
    MemoryLimit.problem() ?? ProcessLimit.problem()
  }
}

/// Whether runner can start its threads under this process's memory limits.
enum MemoryLimit {
  /// The least address space runner starts in: below it, creating a thread fails and
  /// libdispatch retries for ever (a run under `ulimit -v 200000` hung). Measured on 2 cores: a
  /// 60-task run needs about 400 MiB. Each processor adds a pool thread, whose stack (8 MiB)
  /// counts, and malloc arenas (64 MiB each) are capped at 8 under a limit
  /// (`Runner.prepareProcess`): 384 MiB and 16 MiB a processor, at least 512 MiB.
  static var minimumAddressSpace: UInt64 {
    max(512 << 20, (384 << 20) + UInt64(Terminal.processorCount) * (16 << 20))
  }

  /// Why runner cannot start under this process's memory limits, if it cannot.
  static func problem() -> String? {
    let minimum = minimumAddressSpace
    for (resource, name) in [(RLIMIT_AS, "ulimit -v"), (RLIMIT_DATA, "ulimit -d")] {
      var limit = rlimit()
      guard getrlimit(__rlimit_resource_t(resource.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max,
        UInt64(limit.rlim_cur) < minimum
      else { continue }
      return "a memory limit of \(UInt64(limit.rlim_cur) >> 20) MiB (\(name)) is below the "
        + "\(minimum >> 20) MiB of address space runner needs to start its threads "
        + "(\(Terminal.processorCount) processors): raise it"
    }
    return nil
  }
}

/// Whether runner can start its threads and one task under the limits on processes: the
/// user's `ulimit -u` (RLIMIT_NPROC, which counts threads; root is exempt) and the cgroup's
/// `pids.max`. Without the room, the Swift runtime hangs or traps when it makes a thread;
/// checked before runner starts one, this is exit 2 with the cause.
enum ProcessLimit {
  /// runner's own threads (one per processor in the cooperative pool; the reactor, the signal
  /// and Dispatch threads) and one task's shell.
  static var needed: Int { Terminal.processorCount + 7 }

  /// A `ulimit -u` this high is not checked.
  static let countedBelow: rlim_t = 4096

  static func problem() -> String? {
    let needed = needed
    var limit = rlimit()
    // Counting the user's threads reads every process's status: done only under a small limit
    // (the usual one is in the tens of thousands), so that a quick run stays quick.
    if geteuid() != 0, getrlimit(__rlimit_resource_t(__RLIMIT_NPROC.rawValue), &limit) == 0,
      limit.rlim_cur < countedBelow
    {
      let used = threads(ofUser: getuid())
      if Int(limit.rlim_cur) - used < needed {
        return "this user may run \(limit.rlim_cur) processes and threads (ulimit -u) and runs \(used) already: "
          + "runner needs about \(needed) more to start its threads and a task; raise the limit"
      }
    }
    if let (maximum, current) = cgroupPids(), maximum - current < needed {
      return "this cgroup may run \(maximum) processes and threads (pids.max) and runs \(current) already: "
        + "runner needs about \(needed) more to start its threads and a task; raise the limit"
    }
    return nil
  }

  /// The threads of every process whose real user is `user` (what RLIMIT_NPROC counts).
  static func threads(ofUser user: uid_t) -> Int {
    guard let directory = opendir("/proc") else { return 0 }
    defer { closedir(directory) }
    var total = 0
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      guard let first = name.utf8.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
        let status = text("/proc/\(name)/status")
      else { continue }
      var owner: uid_t?
      var count = 0
      for line in status.split(separator: "\n") {
        if line.hasPrefix("Uid:") {
          owner = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { uid_t($0) }
        }
        if line.hasPrefix("Threads:") {
          count = line.split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) } ?? 0
        }
      }
      if owner == user { total += count }
    }
    return total
  }

  /// The cgroup's `pids.max` and `pids.current` (cgroup v2), when it has a maximum.
  static func cgroupPids() -> (maximum: Int, current: Int)? {
    guard let membership = text("/proc/self/cgroup"),
      let line = membership.split(separator: "\n").first(where: { $0.hasPrefix("0::") })
    else { return nil }
    let directory = "/sys/fs/cgroup" + line.dropFirst(3)
    guard let maximum = text(directory + "/pids.max").flatMap({ Int($0.filter { !$0.isWhitespace }) }),
      let current = text(directory + "/pids.current").flatMap({ Int($0.filter { !$0.isWhitespace }) })
    else { return nil }
    return (maximum, current)
  }

  /// A /proc or /sys file's text (FileReader reads to the end: `stat` tells no size there).
  static func text(_ path: String) -> String? {
    (try? FileReader.read(path)).map { String(decoding: $0, as: UTF8.self) }
  }
}
