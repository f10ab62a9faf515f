import Glibc
import RunnerCache
import Synchronization

/// A file system in memory for the engine's decisions, as ninja's `VirtualFileSystem`: files,
/// directories and symbolic links under absolute paths, on one device, with a clock that is a
/// counter. Every change stamps what it touches with the current time; time moves only by
/// `tick()`, so changes within one tick share a time, as on a file system with coarse
/// timestamps. Links are followed in every component of a path, as the kernel does.
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
  /// While set, every write (`append`, `replace`, `makeDirectories`) fails, as on a full disk.
  private let writesFail = Atomic<Bool>(false)

  /// Makes every write fail (true), as a full or read-only disk does, or succeed again.
  package func failWrites(_ fail: Bool) {
    writesFail.store(fail, ordering: .relaxed)
  }

  package init() {}

  /// Moves the clock on by a tick (a millisecond by default).
  package func tick(_ nanoseconds: Int64 = 1_000_000) {
    state.withLock { $0.now += nanoseconds }
  }

  /// Steps the clock back, as an NTP step or `date -s` can.
  package func stepBack(_ nanoseconds: Int64) {
    state.withLock { $0.now -= nanoseconds }
  }

  /// Writes a file (making its directories), as `open(O_CREAT | O_TRUNC)` and `write` do:
  /// through a link to its target, into the same inode when the file exists.
  package func write(_ path: String, _ text: String, executable: Bool = false) {
    state.withLock { state in
      let target = Self.resolve(path, followLast: true, state) ?? Self.normalized(path)
      Self.makeParents(of: target, &state)
      if var node = state.nodes[target], case .file = node.kind {
        node.kind = .file(Array(text.utf8), executable: executable)
        node.modified = state.now
        node.changed = state.now
        state.nodes[target] = node
      } else {
        Self.add(target, .file(Array(text.utf8), executable: executable), &state)
      }
    }
  }

  /// A directory (and its parents), as `mkdir -p`.
  ///
  /// - Returns: false when something other than a directory is there already.
  @discardableResult
  package func makeDirectory(_ path: String) -> Bool {
    state.withLock { state in
      let path = Self.normalized(path)
      if let node = state.nodes[path] {
        if case .directory = node.kind { return true }
        return false
      }
      Self.makeParents(of: path, &state)
      Self.add(path, .directory, &state)
      return true
    }
  }

  /// A symbolic link at `path` to `target` (replacing what is there).
  package func link(_ path: String, to target: String) {
    state.withLock { state in
      let path = Self.resolve(path, followLast: false, state) ?? Self.normalized(path)
      Self.makeParents(of: path, &state)
      Self.add(path, .link(target), &state)
    }
  }

  /// Removes a file, a link, or a directory with all it holds.
  ///
  /// - Returns: whether there was one (a test expects it: a mistyped path is no removal).
  @discardableResult
  package func remove(_ path: String) -> Bool {
    state.withLock { state in
      guard let path = Self.resolve(path, followLast: false, state), state.nodes[path] != nil else { return false }
      let inside = path + "/"
      state.nodes = state.nodes.filter { $0.key != path && !$0.key.hasPrefix(inside) }
      Self.changeParent(of: path, &state)
      return true
    }
  }

  package func read(_ path: String) throws(CacheError) -> [UInt8] {
    let bytes = state.withLock { state -> [UInt8]? in
      guard let target = Self.resolve(path, followLast: true, state),
        case .file(let bytes, _) = state.nodes[target]?.kind
      else { return nil }
      return bytes
    }
    guard let bytes else { throw .io(path, reason: "no such regular file") }
    return bytes
  }

  /// As `write(2)` with `O_APPEND`: into the same inode, which gets new times.
  package func append(_ path: String, _ bytes: [UInt8]) throws(CacheError) {
    if writesFail.load(ordering: .relaxed) { throw .io(path, reason: "No space left on device") }
    let done = state.withLock { state -> Bool in
      guard let target = Self.resolve(path, followLast: true, state), var node = state.nodes[target],
        case .file(let old, let executable) = node.kind
      else { return false }
      node.kind = .file(old + bytes, executable: executable)
      node.modified = state.now
      node.changed = state.now
      state.nodes[target] = node
      return true
    }
    if !done { throw .io(path, reason: "no such regular file") }
  }

  /// As a write of a temporary file renamed over `path`: a new inode.
  package func replace(_ path: String, with bytes: [UInt8]) throws(CacheError) {
    if writesFail.load(ordering: .relaxed) { throw .io(path, reason: "No space left on device") }
    let done = state.withLock { state -> Bool in
      let path = Self.normalized(path)
      guard case .directory = state.nodes[Self.parent(of: path)]?.kind else { return false }
      if let node = state.nodes[path], case .directory = node.kind { return false }
      Self.add(path, .file(bytes, executable: false), &state)
      return true
    }
    if !done { throw .io(path, reason: "no directory to hold it") }
  }

  package func makeDirectories(_ path: String) throws(CacheError) {
    if writesFail.load(ordering: .relaxed), status(path, follow: true) == nil {
      throw .io(path, reason: "No space left on device")
    }
    if !makeDirectory(path) { throw .io(path, reason: "not a directory") }
  }

  /// As `unlink`: a file or a link, never a directory.
  package func removeFile(_ path: String) {
    if let status = status(path, follow: false), status.isDirectory { return }
    remove(path)
  }

  /// Replaces a file's bytes in place without touching its times (a torn write, a disk's
  /// damage): what no stamp can see.
  package func corrupt(_ path: String, _ change: ([UInt8]) -> [UInt8]) {
    state.withLock { state in
      guard let target = Self.resolve(path, followLast: true, state), var node = state.nodes[target],
        case .file(let old, let executable) = node.kind
      else { return }
      node.kind = .file(change(old), executable: executable)
      state.nodes[target] = node
    }
  }

  /// Sets a file's modification time, as `touch -d` does (its change time becomes now).
  ///
  /// - Returns: whether there was such a file.
  @discardableResult
  package func setModified(_ path: String, _ time: Int64) -> Bool {
    state.withLock { state in
      guard let path = Self.resolve(path, followLast: true, state), state.nodes[path] != nil else { return false }
      state.nodes[path]?.modified = time
      state.nodes[path]?.changed = state.now
      return true
    }
  }

  package func status(_ path: String, follow: Bool) -> CacheFileSystem.Status? {
    state.withLock { state in
      guard let path = Self.resolve(path, followLast: follow, state), let node = state.nodes[path] else { return nil }
      let stamp = CacheFileSystem.Stamp(
        device: Self.device, inode: node.inode, size: Self.size(node), modified: node.modified, changed: node.changed)
      return CacheFileSystem.Status(stamp: stamp, mode: Self.mode(node))
    }
  }

  package func list(_ path: String) -> [(name: String, type: UInt8)] {
    state.withLock { state in
      guard let directory = Self.resolve(path, followLast: true, state), case .directory = state.nodes[directory]?.kind
      else { return [] }
      let prefix = directory == "/" ? "/" : directory + "/"
      return state.nodes.compactMap { path, node -> (name: String, type: UInt8)? in
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

  package func hashContent(_ path: String) -> ContentDigest? {
    state.withLock { state -> ContentDigest? in
      guard let path = Self.resolve(path, followLast: true, state), case .file(let bytes, _) = state.nodes[path]?.kind
      else { return nil }
      return ContentDigest(of: bytes)
    }
  }

  /// As `CacheFileSystem.touchMark`: only a regular file (made if missing) in a directory
  /// that exists, never through a link.
  package func touch(_ path: String) -> CacheFileSystem.Stamp? {
    let touched = state.withLock { state -> Bool in
      guard let path = Self.resolve(path, followLast: false, state),
        case .directory = state.nodes[Self.parent(of: path)]?.kind
      else { return false }
      if state.nodes[path] == nil { Self.add(path, .file([], executable: false), &state) }
      guard case .file = state.nodes[path]?.kind else { return false }
      state.nodes[path]?.modified = state.now
      state.nodes[path]?.changed = state.now
      return true
    }
    return touched ? status(path, follow: false)?.stamp : nil
  }

  /// The path of the node `path` names, its links followed in every component (and in the
  /// last one with `followLast`); nil through a missing directory or a loop.
  private static func resolve(_ path: String, followLast: Bool, _ state: State) -> String? {
    var pending = normalized(path).split(separator: "/").map(String.init)
    var current = "/"
    var hops = 0
    while !pending.isEmpty {
      let name = pending.removeFirst()
      if name == ".." {
        current = parent(of: current)
        continue
      }
      let next = current == "/" ? "/" + name : current + "/" + name
      if case .link(let target) = state.nodes[next]?.kind, followLast || !pending.isEmpty {
        hops += 1
        guard hops <= 40 else { return nil }
        pending = target.split(separator: "/").map(String.init).filter { $0 != "." } + pending
        if target.hasPrefix("/") { current = "/" }
        continue
      }
      if !pending.isEmpty, state.nodes[next] == nil { return nil }
      current = next
    }
    return current
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

  /// Without `.` segments and repeated slashes (`..` is left to `resolve`, as links may
  /// come before it).
  private static func normalized(_ path: String) -> String {
    "/" + path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
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
