import Glibc

/// Whether a process group still has a member that is not a zombie.
///
/// `kill(-pgid, 0)` also succeeds for zombies, and an orphan killed at the end of a run stays
/// a zombie until its new parent reaps it — which some init processes (containers, VMs)
/// never do. Trusting `kill` alone would make runner wait out the whole grace period for
/// processes that are already dead.
enum GroupLiveness {
  static func hasLiveMember(_ pgid: Int32) -> Bool {
    guard Kernel.killGroup(pgid, 0) == 0 else { return false }
    guard let directory = opendir("/proc") else { return true }
    defer { closedir(directory) }
    var buffer = [UInt8](repeating: 0, count: 512)
    while let entry = readdir(directory) {
      let pid = withUnsafeBytes(of: entry.pointee.d_name) { raw -> Int32? in
        var value: Int32 = 0
        for byte in raw {
          if byte == 0 { break }
          guard byte >= 48, byte <= 57 else { return nil }
          value = value * 10 + Int32(byte - 48)
        }
        return value > 0 ? value : nil
      }
      guard let pid, let (state, group) = stat(of: pid, buffer: &buffer), group == pgid else { continue }
      if state != UInt8(ascii: "Z") { return true }
    }
    return false
  }

  /// State and process group from `/proc/PID/stat`: "pid (comm) S ppid pgrp …".
  static func stat(of pid: Int32, buffer: inout [UInt8]) -> (UInt8, Int32)? {
    let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0, let close = buffer[0..<count].lastIndex(of: UInt8(ascii: ")")) else { return nil }
    // After ") ": state, space, ppid, space, pgrp.
    let fields = buffer[(close + 2)..<count].split(separator: UInt8(ascii: " "), maxSplits: 4)
    guard fields.count >= 3, let state = fields[0].first else { return nil }
    var group: Int32 = 0
    for byte in fields[2] {
      guard byte >= 48, byte <= 57 else { return nil }
      group = group * 10 + Int32(byte - 48)
    }
    return (state, group)
  }
}
