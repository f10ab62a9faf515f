import Dispatch
import Glibc
import RunnerCache

/// `--watch`: inotify over the directory trees where the watched tasks' sources live (new
/// directories are added as they appear; `.git` and `.runner` are never watched).
///
/// Used by one task at a time (the watch loop), hence `@unchecked Sendable`.
final class SourceWatcher: @unchecked Sendable {
  private let fd: Int32
  private var directories: [Int32: String] = [:]
  private static let mask = UInt32(IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)

  /// Nil when inotify cannot be used (the reason, as errno text, is in `failure`).
  /// - Parameter alone: directories watched without what they hold (the task file's).
  init?(roots: [String], alone: [String] = []) {
    fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
    guard fd >= 0 else { return nil }
    for root in Set(roots) { addTree(root) }
    for directory in Set(alone) where !directories.values.contains(directory) {
      let wd = inotify_add_watch(fd, directory, Self.mask | UInt32(IN_ONLYDIR))
      if wd >= 0, directories[wd] == nil { directories[wd] = directory }
    }
  }

  deinit { close(fd) }

  var watchedDirectories: Int { directories.count }

  private func addTree(_ path: String) {
    let wd = inotify_add_watch(fd, path, Self.mask | UInt32(IN_ONLYDIR))
    guard wd >= 0 else { return }
    directories[wd] = path
    guard let directory = opendir(path) else { return }
    defer { closedir(directory) }
    while let entry = readdir(directory) {
      let name = withUnsafePointer(to: entry.pointee.d_name) {
        String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
      }
      guard entry.pointee.d_type == UInt8(DT_DIR), name != ".", name != "..", !SourceWatcher.ignored(name) else {
        continue
      }
      addTree(path + "/" + name)
    }
  }

  static func ignored(_ name: String) -> Bool { name == ".git" || name == ".runner" }

  /// Waits until something changed, then until `quiet` passes without a change (an editor's
  /// save, a `git checkout`), and returns the paths that changed; nil when `stop` says so
  /// (checked every 100 ms).
  func changes(quiet: Duration, stop: @Sendable () -> Bool) async -> [String]? {
    var changed = Set<String>()
    while changed.isEmpty {
      if stop() { return nil }
      if await readable(milliseconds: 100) { changed.formUnion(drain()) }
    }
    let quietMilliseconds = Int32(
      quiet.components.seconds * 1000 + quiet.components.attoseconds / 1_000_000_000_000_000)
    while await readable(milliseconds: max(1, quietMilliseconds)) {
      if stop() { return nil }
      changed.formUnion(drain())
    }
    return changed.sorted()
  }

  /// Whether events wait, after up to `milliseconds` (on a Dispatch thread, not the pool's).
  private func readable(milliseconds: Int32) async -> Bool {
    let fd = fd
    return await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        continuation.resume(returning: poll(&poller, 1, milliseconds) > 0)
      }
    }
  }

  /// The paths of the queued events; new directories are watched from now on.
  private func drain() -> [String] {
    var paths: [String] = []
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
    defer { buffer.deallocate() }
    while true {
      let count = read(fd, buffer.baseAddress, buffer.count)
      guard count > 0 else { break }
      var offset = 0
      while offset + MemoryLayout<inotify_event>.size <= count {
        let event = buffer.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
        let nameStart = offset + MemoryLayout<inotify_event>.size
        let nameBytes = UnsafeRawBufferPointer(rebasing: buffer[nameStart..<(nameStart + Int(event.len))])
        let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
        if let directory = directories[event.wd], !name.isEmpty {
          let path = directory + "/" + name
          if event.mask & UInt32(IN_ISDIR) != 0 {
            if event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, !Self.ignored(name) { addTree(path) }
          } else {
            paths.append(path)
          }
        }
        offset = nameStart + Int(event.len)
      }
    }
    return paths
  }
}
