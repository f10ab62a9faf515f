/// The state file's format (version 7; files of version 4, which had no `D` lines, 5, which
/// had no no-op records, and 6, which had no `F` lines, read as well): a header line, then segments. A segment is lines of
/// tab-separated, escaped fields, closed by a line with the SHA-256 of the segment's lines:
///
/// ```
/// runner-state 5
/// T name fingerprint operation directory environment dependencies outputDigest
/// S path hash size x|- device inode size mtime ctime  (a source of the task above; `x`:
///                                                     executable; "-" hash: no file there,
///                                                     read as "missing" too; "-" stamp: none)
/// O path hash size x|- device inode size mtime ctime  (an output file)
/// V key value                                    (an output value)
/// D outcome why variables dependencies          (the last decision that was not "up to date":
///                                                ran, restored, …; why; `InputDigests`)
/// W key                                          (how the sources were found: `SourceWalk`)
/// L path device inode size mtime ctime           (a directory listed)
/// P path f|l absent|directory|other              (a path looked up, following links or not)
/// F count                                        (the task's depfile was read: the files it
///                                                named follow)
/// I path hash size x|- device inode size mtime ctime  (a file the depfile named)
/// X name                                         (the task's record is dropped)
/// sha256 <hex of the segment's lines>
/// ```
///
/// A segment of another kind, last in the file, is the record of the last run, in which every
/// task succeeded (`NoOpRecord+Codec.swift`); a later segment voids it.
///
/// A later record of a task replaces an earlier one. Like ninja's build log, the file is
/// appended to: a run that changed records adds one segment with them, rather than writing
/// every record again (10 MB for 10 000 tasks). When the appended segments would pass a
/// quarter of the file's last whole write, the save writes it whole again, one segment of every
/// record. A segment cut short or not matching its checksum ends the read: the records before
/// it are used, and the next save writes the file whole.
///
/// A line-based format rather than JSON keeps the read (tens of thousands of lines) fast with a
/// byte-level parser and no Foundation.
extension BuildState {
  static let header = "runner-state \(formatVersion)\n"

  /// The whole file: the header and one segment with every record.
  func encoded() -> [UInt8] {
    Array(Self.header.utf8) + Self.segment(tasks.keys.sorted().map { ($0, tasks[$0]) })
  }

  /// A segment with `changes` in order: a record, or nil to drop the task's record.
  static func segment(_ changes: [(name: String, record: TaskRecord?)]) -> [UInt8] {
    var out = LineWriter()
    out.bytes.reserveCapacity(changes.count * 1024)
    for (name, record) in changes {
      guard let record else {
        out.line("X", [name])
        continue
      }
      out.line(
        "T",
        [
          name, record.fingerprint ?? "", record.operation, record.directory, record.environment, record.dependencies,
          record.outputDigest,
        ])
      for file in record.sources { out.line("S", file: file) }
      for file in record.outputs { out.line("O", file: file) }
      for value in record.values { out.line("V", [value.key, value.value]) }
      if let outcome = record.outcome {
        out.line("D", [outcome.rawValue, record.why, record.variables, record.inputs])
      }
      if let walk = record.walk {
        out.line("W", [walk.key])
        for listing in walk.listings { out.line("L", path: listing.path, stamp: listing.stamp) }
        for probe in walk.probes { out.line("P", [probe.path, probe.follow ? "f" : "l", probe.kind.rawValue]) }
      }
      if let discovered = record.discovered {
        out.line("F", [String(discovered.count)])
        for file in discovered { out.line("I", file: file) }
      }
    }
    out.appendTrailer()
    return out.bytes
  }

  /// What a read of the state file found.
  struct Decoded {
    var state = BuildState()
    /// Why the read stopped before the end of the file, if it did.
    var damage: String?
    /// The records (`T` and `X` lines) read, superseded ones included.
    var records = 0
    /// Where the first segment (the last whole write) ends.
    var wholeBytes = 0
    /// The damage is an appended segment cut short: a save that a crash interrupted, or one
    /// still being written by a run whose lock this reader does not hold (a dry run).
    var tornAppend = false
    /// The file is a state of another format version.
    var otherVersion = false
    /// The file is of a version before (read as it is, but to be written whole).
    var previousVersion = false
    /// The last segment, when it is the record of the last run (`NoOpRecord`).
    var noOpRecord: NoOpRecord?
  }

  /// Reads every whole segment, up to the first one that is cut short, does not match its
  /// checksum, or does not parse. Never fails: a file of another format or version reads as
  /// empty, with `damage` saying why.
  ///
  /// - Parameter stampsOnly: read only what a check of stamps needs (`StateReader`).
  static func decode(_ bytes: [UInt8], path: String, stampsOnly: Bool = false) -> Decoded {
    var decoded = Decoded()
    var header = Array(Self.header.utf8)
    for version in previousVersions where bytes.starts(with: "runner-state \(version)\n".utf8) {
      header = Array(bytes[..<header.count])
      decoded.previousVersion = true
    }
    guard bytes.count >= header.count, Array(bytes[..<header.count]) == header else {
      let first = bytes.prefix(64).prefix { $0 != UInt8(ascii: "\n") }
      decoded.damage = "not a state file of format \(formatVersion) ('\(String(decoding: first, as: UTF8.self))')"
      decoded.otherVersion = first.starts(with: "runner-state ".utf8)
      return decoded
    }
    var position = header.count
    bytes.withUnsafeBufferPointer { buffer in
      while position < buffer.count {
        // Whatever follows a record voids it, damage too.
        guard let trailer = LineWriter.trailer(in: buffer, from: position) else {
          decoded.noOpRecord = nil
          decoded.damage = "its last segment is cut short"
          decoded.tornAppend = decoded.wholeBytes > 0
          return
        }
        guard trailer.matches else {
          decoded.noOpRecord = nil
          decoded.damage = "a segment does not match its checksum"
          return
        }
        // Parsed whole before any of it is applied: a segment that does not parse leaves no
        // part of itself behind.
        var reader = StateReader(buffer[position..<trailer.start], path: path, stampsOnly: stampsOnly)
        let changes: [(name: String, record: TaskRecord?)]
        do {
          if position < trailer.start, StateReader.startsRecord(buffer[position]) {
            decoded.noOpRecord = try reader.noOpRecord()
            changes = []
          } else {
            changes = try reader.changes()
            decoded.noOpRecord = nil
          }
        } catch {
          decoded.noOpRecord = nil
          decoded.damage = "\(error)"
          return
        }
        if decoded.state.tasks.isEmpty { decoded.state.tasks.reserveCapacity(changes.count) }
        for change in changes { decoded.state.tasks[change.name] = change.record }
        decoded.records += reader.records
        position = trailer.end
        if decoded.wholeBytes == 0 { decoded.wholeBytes = position }
      }
    }
    return decoded
  }

  /// The whole file, or an error naming the first damage (for tests and tools).
  ///
  /// - Throws: `CacheError.corrupt` when any part of the file cannot be used.
  init(decoding bytes: [UInt8], path: String) throws(CacheError) {
    let decoded = Self.decode(bytes, path: path)
    if let damage = decoded.damage { throw .corrupt(path, reason: damage) }
    self = decoded.state
  }

  static func fields(of stamp: CacheFileSystem.Stamp) -> [String] {
    [String(stamp.device), String(stamp.inode), String(stamp.size), String(stamp.modified), String(stamp.changed)]
  }

  /// Appends a line of `kind` and the fields (`LineWriter`'s format).
  static func line(_ out: inout [UInt8], _ kind: Unicode.Scalar, _ fields: [String]) {
    var writer = LineWriter()
    swap(&writer.bytes, &out)
    writer.line(kind, fields)
    swap(&writer.bytes, &out)
  }

  /// A line's fields, escapes undone (the cache entry's header uses the same format).
  static func split(_ line: ArraySlice<UInt8>) -> [String] {
    var fields: [String] = []
    var field: [UInt8] = []
    var escaped = false
    var plain = true
    var start = line.startIndex
    for index in line.indices {
      let byte = line[index]
      if escaped {
        field.append(byte == UInt8(ascii: "t") ? 9 : byte == UInt8(ascii: "n") ? 10 : byte)
        escaped = false
      } else if byte == UInt8(ascii: "\\") {
        if plain { field.append(contentsOf: line[start..<index]) }
        plain = false
        escaped = true
      } else if byte == UInt8(ascii: "\t") {
        fields.append(
          plain ? String(decoding: line[start..<index], as: UTF8.self) : String(decoding: field, as: UTF8.self))
        field.removeAll(keepingCapacity: true)
        plain = true
        start = index + 1
      } else if !plain {
        field.append(byte)
      }
    }
    fields.append(plain ? String(decoding: line[start...], as: UTF8.self) : String(decoding: field, as: UTF8.self))
    return fields
  }
}
