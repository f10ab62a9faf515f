/// The no-op record as a segment of the state log (`BuildState+Codec.swift`):
///
/// ```
/// U name shown fingerprint         (a task found up to date: its record's name, its name shown,
///                                   the fingerprint its record had)
/// G shown                          (a group)
/// R path device inode size mtime ctime   (a file changed last; the newest last)
/// S shown                          (a task it does not vouch for)
/// N key taskFileBytes taskFileContent concurrency
/// sha256 <hex of the segment's lines>
/// ```
///
/// The `N` line closes it, so the end of the file alone says whether the log's last segment is
/// a record, for which run, whether it vouches for every task (no `S` line just before), and
/// which files to look at first.
extension NoOpRecord {
  /// The record as one segment of the state file.
  func segment() -> [UInt8] {
    var out = LineWriter()
    out.bytes.reserveCapacity(tasks.count * 40 + recent.count * 100 + 300)
    for task in tasks {
      if let record = task.record {
        out.line("U", [record, task.shown, task.fingerprint])
      } else {
        out.line("G", [task.shown])
      }
    }
    for file in recent.reversed() { out.line("R", path: file.path, stamp: file.stamp) }
    for shown in unvouched { out.line("S", [shown]) }
    out.line("N", [key, taskFile.bytes, taskFile.content, String(concurrency)])
    out.appendTrailer()
    return out.bytes
  }

  /// What the end of a state file says of its last segment, if that is a record that vouches
  /// for every task: the key, the task file's digests and the files changed last, newest
  /// first. Only whole lines count:
  /// `bytes` (the file's last bytes) may start mid-line. The checksum is not checked here
  /// (the segment may not be whole in `bytes`); the read of the whole file checks it.
  package static func tail(of bytes: [UInt8]) -> (key: String, taskFile: TaskFileDigests, recent: [File])? {
    guard let firstBreak = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
    var lines = bytes[(firstBreak + 1)...].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    // The file ends with a newline: the last piece is empty.
    guard lines.popLast()?.isEmpty == true, let trailer = lines.popLast(), trailer.starts(with: "sha256 ".utf8),
      let last = lines.popLast()
    else { return nil }
    let fields = BuildState.split(last)
    // A record of an earlier runner (no concurrency) is not replayed: the full path replaces it.
    guard fields.count == 5, fields[0] == "N",
      lines.last?.first != UInt8(ascii: "S")
    else { return nil }
    var recent: [File] = []
    while let line = lines.popLast(), line.first == UInt8(ascii: "R") {
      let fields = BuildState.split(line)
      guard fields.count == 7, let stamp = Self.stamp(fields[2...]) else { break }
      recent.append(File(path: fields[1], stamp: stamp))
    }
    return (fields[1], TaskFileDigests(bytes: fields[2], content: fields[3]), recent)
  }

  /// The records of a whole state file, read for their stamps only (no digests), and the
  /// record of a run it ends with; nil for a file that is damaged in any part or of an earlier
  /// version.
  package static func read(log bytes: [UInt8], path: String) -> (state: BuildState, record: NoOpRecord?)? {
    let decoded = BuildState.decode(bytes, path: path, stampsOnly: true)
    guard decoded.damage == nil, !decoded.previousVersion else { return nil }
    return (decoded.state, decoded.noOpRecord)
  }

  private static func stamp(_ fields: ArraySlice<String>) -> CacheFileSystem.Stamp? {
    let numbers = fields.compactMap { Int64($0) }
    guard numbers.count == 5 else { return nil }
    return CacheFileSystem.Stamp(
      device: numbers[0], inode: numbers[1], size: numbers[2], modified: numbers[3], changed: numbers[4])
  }

  /// Appends the record to the state file at `path`, if the file is still the one with
  /// `stamp` (read under the run lock): otherwise the record may not describe it.
  ///
  /// - Returns: whether it was appended.
  package func append(to path: String, ifStill stamp: CacheFileSystem.Stamp) -> Bool {
    guard stamp.holds(at: path) else { return false }
    do {
      try CacheFileSystem.append(path, segment())
      return true
    } catch {
      return false
    }
  }
}

extension StateReader {
  /// A segment that is a no-op record (its first line is `U`, `G`, `R`, `S` or `N`).
  static func startsRecord(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: "U") || byte == UInt8(ascii: "G") || byte == UInt8(ascii: "R") || byte == UInt8(ascii: "S")
      || byte == UInt8(ascii: "N")
  }
}
