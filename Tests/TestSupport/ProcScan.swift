import Glibc

/// What the tests learn about processes from /proc, read with plain system calls.
///
/// Foundation is avoided on purpose: `FileManager.contents(atPath:)` leaks its buffer (4 KiB a
/// call, hundreds of MB over a polling test under AddressSanitizer) on files that report size 0,
/// as every /proc file does, and `contentsOfDirectory(atPath:)` keeps a handle per call.
public enum ProcScan {
  /// The fields of `/proc/PID/stat` the tests use.
  public struct Status {
    public var state: Character
    public var parent: Int32
    public var group: Int32
    public var session: Int32
  }

  /// A /proc file's text, or `nil` when it cannot be read (the process is gone).
  public static func file(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 { return nil }
      if count == 0 { break }
      bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Every process id in /proc.
  public static func allPIDs() -> [Int32] {
    entries(of: "/proc").compactMap { Int32($0) }
  }

  /// The names in a directory, without `.` and `..`.
  public static func entries(of path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  public static func status(of pid: Int32) -> Status? {
    // "pid (comm) S ppid pgrp session …"; comm may hold spaces and parentheses.
    guard let text = file("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 3, let state = fields[0].first, let parent = Int32(fields[1]), let group = Int32(fields[2]),
      let session = Int32(fields[3])
    else { return nil }
    return Status(state: state, parent: parent, group: group, session: session)
  }

  public static func parent(of pid: Int32) -> Int32? { status(of: pid)?.parent }

  /// Whether `pid` exists and is not a zombie.
  public static func isAlive(_ pid: Int32) -> Bool {
    guard let status = status(of: pid) else { return false }
    return status.state != "Z"
  }

  /// The short name (`comm`) of a process.
  public static func name(of pid: Int32) -> String? {
    file("/proc/\(pid)/comm").map { String($0.prefix { $0 != "\n" }) }
  }

  /// What a process's descriptors point to ("/dev/null", "pipe:[123]", "socket:[456]"), by number.
  public static func descriptors(of pid: Int32) -> [Int32: String] {
    var targets: [Int32: String] = [:]
    for entry in entries(of: "/proc/\(pid)/fd") {
      guard let fd = Int32(entry) else { continue }
      var buffer = [CChar](repeating: 0, count: 4096)
      let count = readlink("/proc/\(pid)/fd/\(entry)", &buffer, buffer.count - 1)
      if count >= 0 { targets[fd] = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    }
    return targets
  }

  /// Live processes whose command line contains `marker`.
  public static func pids(containing marker: String) -> [Int32] {
    allPIDs().filter { pid in
      guard let commandLine = file("/proc/\(pid)/cmdline"), commandLine.contains(marker) else { return false }
      return isAlive(pid)
    }
  }

  /// The live processes named `name` (their `comm`).
  public static func pids(named name: String) -> [Int32] {
    allPIDs().filter { self.name(of: $0) == name && isAlive($0) }
  }

  /// The marked processes still alive after polling for up to `waiting` for them to go.
  public static func survivors(_ marker: String, waiting: Duration = .seconds(2)) -> [Int32] {
    let deadline = ContinuousClock.now + waiting
    var left = pids(containing: marker)
    while !left.isEmpty, ContinuousClock.now < deadline {
      usleep(20_000)
      left = pids(containing: marker)
    }
    return left
  }

  /// Polls `condition` every 10 ms until it holds or `timeout` passes; returns its last value.
  public static func wait(upTo timeout: Duration = .seconds(5), until condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
      if ContinuousClock.now >= deadline { return false }
      usleep(10_000)
    }
    return true
  }
}
