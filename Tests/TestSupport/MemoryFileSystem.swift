import Glibc
import RunnerCache
import Synchronization

/// A file system in memory for the engine's decisions, as ninja's `VirtualFileSystem`: files,
/// directories and symbolic links under absolute paths, on one device, with a clock that is a
/// counter. Every change stamps what it touches with the current time and a fresh change time;
/// time moves only by `tick()`, so changes within one tick share a time, as on a file system
/// with coarse timestamps.
package final class MemoryFileSystem: FileSystem {
  package static let device: Int64 = 7

  private enum Kind {
    case file([UInt8], executable: Bool)
    case directory
    case link(String)
  }

  private struct Node {
    var kind: Kind
    var inode: Int64
    var modified: Int64
    var changed: Int64
  }

  private struct State {
    var nodes: [String: Node] = ["/": Node(kind: .directory, inode: 1, modified: 0, changed: 0)]
    var now: Int64 = 1_000_000_000
    var nextInode: Int64 = 2
  }

  private let state = Mutex(State())

  package init() {}

  /// Moves the clock on by a tick (a millisecond by default).
  package func tick(_ nanoseconds: Int64 = 1_000_000) {
    state.withLock { $0.now += nanoseconds }
  }

  package var now: Int64 { state.withLock { $0.now } }

  /// Writes a file (making its directories), as `open(O_TRUNC)` + `write` would: the same inode
  /// when it exists.
  package func write(_ path: String, _ text: String, executable: Bool = false) {
    state.withLock { state in
      Self.makeParents(of: path, &state)
      if var node = state.nodes[path], case .file = node.kind {
        node.kind = .file(Array(text.utf8), executable: executable)
        node.modified = state.now
        node.changed = state.now
        state.nodes[path] = node
      } else {
        Self.add(path, .file(Array(text.utf8), executable: executable), &state)
      }
    }
  }

  /// A symbolic link at `path` to `target` (replacing what is there).
  package func link(_ path: String, to target: String) {
    state.withLock { state in
      Self.makeParents(of: path, &state)
      Self.add(path, .link(target), &state)
    }
  }

  package func remove(_ path: String) {
    state.withLock { state in
      guard state.nodes.removeValue(forKey: path) != nil else { return }
      Self.changeParent(of: path, &state)
    }
  }

  /// Sets a file's modification time, as `touch -d` does (its change time becomes now).
  package func setModified(_ path: String, _ time: Int64) {
    state.withLock { state in
      state.nodes[path]?.modified = time
      state.nodes[path]?.changed = state.now
    }
  }

  package func status(_ path: String, follow: Bool) -> CacheFileSystem.Status? {
    state.withLock { state in
      var path = Self.normalized(path)
      for _ in 0..<8 {
        guard let node = state.nodes[path] else { return nil }
        if follow, case .link(let target) = node.kind {
          path = target.hasPrefix("/") ? target : Self.parent(of: path) + "/" + target
          path = Self.normalized(path)
          continue
        }
        let stamp = CacheFileSystem.Stamp(
          device: Self.device, inode: node.inode, size: Self.size(node), modified: node.modified,
          changed: node.changed)
        return CacheFileSystem.Status(stamp: stamp, mode: Self.mode(node))
      }
      return nil
    }
  }

  package func list(_ path: String) -> [(name: String, type: UInt8)] {
    guard let found = status(path, follow: true), found.mode & UInt32(S_IFMT) == UInt32(S_IFDIR) else { return [] }
    let directory = resolved(path)
    let prefix = directory == "/" ? "/" : directory + "/"
    return state.withLock { state in
      state.nodes.compactMap { path, node -> (name: String, type: UInt8)? in
        guard path.hasPrefix(prefix), path != prefix, !path.dropFirst(prefix.count).contains("/") else { return nil }
        let type: UInt8
        switch node.kind {
        case .file: type = UInt8(DT_REG)
        case .directory: type = UInt8(DT_DIR)
        case .link: type = UInt8(DT_LNK)
        }
        return (String(path.dropFirst(prefix.count)), type)
      }.sorted { $0.name < $1.name }
    }
  }

  package func hashContent(_ path: String) -> (hash: String, size: Int64)? {
    let target = resolved(path)
    return state.withLock { state -> (hash: String, size: Int64)? in
      guard case .file(let bytes, _) = state.nodes[target]?.kind else { return nil }
      return (ContentHasher.sha256Hex(bytes), Int64(bytes.count))
    }
  }

  package func touch(_ path: String) -> (before: CacheFileSystem.Stamp, after: CacheFileSystem.Stamp)? {
    state.withLock { state in
      Self.makeParents(of: path, &state)
      if state.nodes[path] == nil { Self.add(path, .file([], executable: false), &state) }
    }
    guard let before = status(path, follow: false)?.stamp else { return nil }
    state.withLock { state in
      state.nodes[path]?.modified = state.now
      state.nodes[path]?.changed = state.now
    }
    guard let after = status(path, follow: false)?.stamp else { return nil }
    // A clock stepped back: the mark keeps its latest time (as `CacheFileSystem.touchMark`).
    if after.modified < before.modified { state.withLock { $0.nodes[path]?.modified = before.modified } }
    return (before, after)
  }

  /// Steps the clock back, as an NTP step or `date -s` can.
  package func stepBack(_ nanoseconds: Int64) {
    state.withLock { $0.now -= nanoseconds }
  }

  /// `path` with its symbolic links followed.
  private func resolved(_ path: String) -> String {
    state.withLock { state in
      var path = Self.normalized(path)
      for _ in 0..<8 {
        guard case .link(let target) = state.nodes[path]?.kind else { return path }
        path = Self.normalized(target.hasPrefix("/") ? target : Self.parent(of: path) + "/" + target)
      }
      return path
    }
  }

  private static func add(_ path: String, _ kind: Kind, _ state: inout State) {
    state.nodes[path] = Node(kind: kind, inode: state.nextInode, modified: state.now, changed: state.now)
    state.nextInode += 1
    changeParent(of: path, &state)
  }

  private static func makeParents(of path: String, _ state: inout State) {
    let parent = parent(of: path)
    guard parent != "/", state.nodes[parent] == nil else { return }
    makeParents(of: parent, &state)
    add(parent, .directory, &state)
  }

  /// An entry added or removed changes its directory's times.
  private static func changeParent(of path: String, _ state: inout State) {
    let parent = parent(of: path)
    state.nodes[parent]?.modified = state.now
    state.nodes[parent]?.changed = state.now
  }

  private static func parent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
    return String(path[..<slash])
  }

  private static func normalized(_ path: String) -> String {
    var parts: [Substring] = []
    for part in path.split(separator: "/") where part != "." {
      if part == ".." {
        _ = parts.popLast()
      } else {
        parts.append(part)
      }
    }
    return "/" + parts.joined(separator: "/")
  }

  private static func size(_ node: Node) -> Int64 {
    switch node.kind {
    case .file(let bytes, _): Int64(bytes.count)
    case .directory: 4096
    case .link(let target): Int64(target.utf8.count)
    }
  }

  private static func mode(_ node: Node) -> UInt32 {
    switch node.kind {
    case .file(_, let executable): UInt32(S_IFREG) | (executable ? 0o755 : 0o644)
    case .directory: UInt32(S_IFDIR) | 0o755
    case .link: UInt32(S_IFLNK) | 0o777
    }
  }
}
