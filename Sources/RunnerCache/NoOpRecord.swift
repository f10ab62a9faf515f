import Dispatch
import Glibc
import RunnerBasics
import RunnerModel
import Synchronization

/// A run in which nothing ran, remembered in `.runner/noop` so that the same run again can
/// reach the same conclusion from `stat`s alone: no YAML, no state, no fingerprints, no
/// scheduler. (ninja's no-op is the same idea: trust the log while every `stat` agrees.)
///
/// It is sound because the key pins everything a fingerprint is made of except files: this
/// runner binary, the directory, the arguments, the environment, and the state file (its
/// stamp, so any run that changed a record invalidates it); beside it, the task file is pinned
/// by its bytes or, when they differ, by its YAML content (`TaskFileDigests`), so a comment
/// added to the file does not void the record. The files are
/// pinned as the full path pins them: the listings and probes of each task's source walk, and
/// the trusted stamps of its sources and outputs. Any difference, and the run takes the full
/// path, which writes a new record if again nothing ran, and voids this one otherwise.
package struct NoOpRecord: Sendable {
  static let header = "runner-noop 3"

  /// One task as the run finished it, in the order it did.
  package struct Task: Sendable, Equatable {
    package var name: String
    /// The reason it was shown with ("up to date"); nil for a group (shown with its time).
    package var note: String?
    var walk: SourceWalk?
    var files: [File]

    package init(name: String, note: String? = nil, walk: SourceWalk? = nil, files: [File]) {
      self.name = name
      self.note = note
      self.walk = walk
      self.files = files
    }
  }

  package struct File: Sendable, Equatable {
    /// The full path, or one relative to runner's working directory.
    package var path: String
    package var stamp: CacheFileSystem.Stamp

    package init(path: String, stamp: CacheFileSystem.Stamp) {
      self.path = path
      self.stamp = stamp
    }
  }

  /// `invocationKey`, plus the state file's stamp.
  package var key: String
  package var tasks: [Task]
  /// The task file the record was made with.
  package var taskFile: TaskFileDigests

  package init(key: String, taskFile: TaskFileDigests = TaskFileDigests(bytes: "", content: ""), tasks: [Task]) {
    self.key = key
    self.taskFile = taskFile
    self.tasks = tasks
  }

  /// A task file, by the SHA-256 of its bytes and of its YAML content
  /// (`YAMLParser.canonicalContent`).
  package struct TaskFileDigests: Sendable, Equatable {
    package var bytes: String
    package var content: String

    package init(bytes: String, content: String) {
      self.bytes = bytes
      self.content = content
    }

    /// The digest of the file's bytes.
    package static func bytes(_ bytes: [UInt8]) -> String {
      var hasher = ContentHasher()
      bytes.withUnsafeBytes { hasher.add(bytes: $0) }
      return hasher.finalize()
    }

    /// The digest of its YAML content; nil when it is not well-formed YAML.
    package static func content(_ bytes: [UInt8]) -> String? {
      guard let canonical = YAMLParser.canonicalContent(bytes) else { return nil }
      var hasher = ContentHasher()
      canonical.withUnsafeBytes { hasher.add(bytes: $0) }
      return hasher.finalize()
    }

    /// Both digests of `bytes`.
    package init?(of bytes: [UInt8]) {
      guard let content = Self.content(bytes) else { return nil }
      self.init(bytes: Self.bytes(bytes), content: content)
    }
  }

  /// Everything besides the files and the state that decides how a run turns out.
  ///
  /// - Parameters:
  ///   - taskFile: the task file's path as given (its content is pinned beside the key).
  ///   - arguments: the command line, without the program's name.
  /// - Returns: nil when runner cannot tell which build of itself is running (no /proc).
  package static func invocationKey(taskFile path: String, arguments: [String]) -> String? {
    // Another build of runner may decide differently.
    guard let executable = CacheFileSystem.status("/proc/self/exe")?.stamp else { return nil }
    var hasher = ContentHasher()
    hasher.add(header)
    for field in BuildState.fields(of: executable) { hasher.add(field) }
    if let directory = getcwd(nil, 0) {
      hasher.add(String(cString: directory))
      free(directory)
    }
    hasher.add(path)
    hasher.add(Int64(arguments.count))
    for argument in arguments { hasher.add(argument) }
    hasher.add(Fingerprint.wholeEnvironmentDigest(ProcessEnvironment.current))
    return hasher.finalize()
  }

  package static func key(invocation: String, state: CacheFileSystem.Stamp) -> String {
    ([invocation] + BuildState.fields(of: state)).joined(separator: " ")
  }

  /// Whether every walk and every file is as recorded, checked on two threads.
  ///
  /// - Parameter abandoned: checked between tasks; once true, the check stops and fails.
  package func holds(unless abandoned: @Sendable () -> Bool = { false }) -> Bool {
    final class Verdict: Sendable {
      let failed = Atomic<Bool>(false)
    }
    let verdict = Verdict()
    let half = (tasks.count + 1) / 2
    DispatchQueue.concurrentPerform(iterations: 2) { part in
      for task in tasks[part == 0 ? 0..<half : half..<tasks.count] {
        if verdict.failed.load(ordering: .relaxed) { return }
        if abandoned() {
          verdict.failed.store(true, ordering: .relaxed)
          return
        }
        let holds =
          (task.walk?.holds(in: LocalFileSystem(), judge: nil) ?? true)
          && task.files.allSatisfy { $0.stamp.holds(at: $0.path) }
        if !holds { verdict.failed.store(true, ordering: .relaxed) }
      }
    }
    return !verdict.failed.load(ordering: .relaxed)
  }
}

extension NoOpRecord {
  /// The same line format as the state file (`LineWriter`).
  package func encoded() -> [UInt8] {
    var out = LineWriter()
    out.bytes.reserveCapacity(tasks.count * 400)
    out.bytes.append(contentsOf: (Self.header + "\n").utf8)
    out.line("K", [key, taskFile.bytes, taskFile.content])
    for file in recentFiles() { out.line("R", path: file.path, stamp: file.stamp) }
    for task in tasks {
      out.begin("T")
      out.field(task.name)
      if let note = task.note {
        out.field("+")
        out.field(note)
      } else {
        out.field("-")
      }
      out.end()
      if let walk = task.walk {
        out.line("W", [])
        for listing in walk.listings { out.line("L", path: listing.path, stamp: listing.stamp) }
        for probe in walk.probes { out.line("P", [probe.path, probe.follow ? "f" : "l", probe.kind.rawValue]) }
      }
      for file in task.files { out.line("F", path: file.path, stamp: file.stamp) }
    }
    out.appendTrailer()
    return out.bytes
  }

  /// How many of the most recently changed files the record repeats after its key.
  static let recentCount = 64

  /// The files changed last before the record was written, newest first. A file being
  /// edited was usually edited before the last run too: checking these first, before the
  /// rest of the record is read, turns most edit-and-run cycles away in a few `stat`s.
  func recentFiles() -> [File] {
    // The newest `recentCount`, kept sorted newest first (first seen first among equals).
    var kept: [(time: Int64, file: File)] = []
    for task in tasks {
      for file in task.files {
        let time = max(file.stamp.modified, file.stamp.changed)
        if kept.count == Self.recentCount, time <= kept[kept.count - 1].time { continue }
        let place = kept.firstIndex { $0.time < time } ?? kept.count
        kept.insert((time, file), at: place)
        if kept.count > Self.recentCount { kept.removeLast() }
      }
    }
    return kept.map(\.file)
  }

  /// The record's key and its recently changed files, from the first bytes of the file (nil
  /// if they do not start a record). Only whole lines count: `bytes` may end mid-line.
  /// Reads no further than the head, however many bytes it is given.
  package static func head(of bytes: [UInt8]) -> (key: String, taskFile: TaskFileDigests, recent: [File])? {
    var start = bytes.startIndex
    func nextLine() -> ArraySlice<UInt8>? {
      guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
      defer { start = end + 1 }
      return bytes[start..<end]
    }
    guard let first = nextLine(), String(decoding: first, as: UTF8.self) == header, let second = nextLine()
    else { return nil }
    let fields = BuildState.split(second)
    guard fields.count == 4, fields[0] == "K" else { return nil }
    var recent: [File] = []
    while let line = nextLine(), line.first == UInt8(ascii: "R") {
      let fields = BuildState.split(line)
      guard fields.count == 7, fields[0] == "R", let stamp = Self.stamp(fields[2...]) else { break }
      recent.append(File(path: fields[1], stamp: stamp))
    }
    return (fields[1], TaskFileDigests(bytes: fields[2], content: fields[3]), recent)
  }

  /// The record's key (nil if the bytes do not start a record).
  static func key(of bytes: [UInt8]) -> String? {
    head(of: bytes)?.key
  }

  /// - Returns: nil for a file that is truncated, corrupt or malformed in any way.
  package init?(decoding bytes: [UInt8]) {
    guard case .body(let bodyEnd) = LineWriter.checkTrailer(bytes), let head = Self.head(of: bytes) else {
      return nil
    }
    key = head.key
    taskFile = head.taskFile
    tasks = []
    // After the header, the key and the recent files `head` read (an R line it stopped at is
    // malformed, and refused below).
    for line in bytes[..<bodyEnd].split(separator: UInt8(ascii: "\n")).dropFirst(2 + head.recent.count) {
      let fields = BuildState.split(line)
      switch (fields[0], fields.count) {
      case ("T", 3) where fields[2] == "-":
        tasks.append(Task(name: fields[1], note: nil, walk: nil, files: []))
      case ("T", 4) where fields[2] == "+":
        tasks.append(Task(name: fields[1], note: fields[3], walk: nil, files: []))
      case ("W", 1) where !tasks.isEmpty:
        tasks[tasks.count - 1].walk = SourceWalk(key: "", listings: [], probes: [])
      case ("L", 7) where tasks.last?.walk != nil:
        guard let stamp = Self.stamp(fields[2...]) else { return nil }
        tasks[tasks.count - 1].walk!.listings.append(SourceWalk.Listing(path: fields[1], stamp: stamp))
      case ("P", 4) where tasks.last?.walk != nil:
        guard let kind = SourceWalk.Kind(rawValue: fields[3]), fields[2] == "f" || fields[2] == "l" else { return nil }
        tasks[tasks.count - 1].walk!.probes.append(
          SourceWalk.Probe(path: fields[1], follow: fields[2] == "f", kind: kind))
      case ("F", 7) where !tasks.isEmpty:
        guard let stamp = Self.stamp(fields[2...]) else { return nil }
        tasks[tasks.count - 1].files.append(File(path: fields[1], stamp: stamp))
      default:
        return nil
      }
    }
  }

  private static func stamp(_ fields: ArraySlice<String>) -> CacheFileSystem.Stamp? {
    let numbers = fields.compactMap { Int64($0) }
    guard numbers.count == 5 else { return nil }
    return CacheFileSystem.Stamp(
      device: numbers[0], inode: numbers[1], size: numbers[2], modified: numbers[3], changed: numbers[4])
  }
}
