import RunnerModel

/// Reads one segment of `.runner/state` (the format is in `BuildState+Codec.swift`) field by field,
/// straight from the bytes: no array of lines, no array of fields per line. The no-op run
/// reads tens of thousands of lines before it can start, so this is on its critical path.
struct StateReader {
  private let bytes: Slice<UnsafeBufferPointer<UInt8>>
  private var position: Int
  private let path: String
  private var line = 0
  /// The `T` and `X` lines read so far.
  private(set) var records = 0

  /// Reads only what a check of stamps needs (`NoOpRecord.holds`): each record's name,
  /// fingerprint, directory, walk, and its files' paths and stamps; digests, values and
  /// decisions are passed over (files read as having no content).
  private let stampsOnly: Bool

  init(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, path: String, stampsOnly: Bool = false) {
    self.bytes = bytes
    position = bytes.startIndex
    self.path = path
    self.stampsOnly = stampsOnly
  }

  private static let tab = UInt8(ascii: "\t")
  private static let newline = UInt8(ascii: "\n")

  /// One segment's records in order: a record replaces the task's earlier one, nil (an `X`
  /// line) drops it.
  mutating func changes() throws(CacheError) -> [(name: String, record: TaskRecord?)] {
    var changes: [(name: String, record: TaskRecord?)] = []
    var name: String?
    var record = TaskRecord(
      fingerprint: nil, operation: "", directory: "", environment: "", dependencies: "", sources: [], outputs: [],
      values: [], outputDigest: "")
    while position < bytes.endIndex {
      line += 1
      let kind = bytes[position]
      position += 1
      if kind == UInt8(ascii: "T") {
        records += 1
        if let name { changes.append((name, record)) }
        name = try field()
        let fingerprint = try field()
        if stampsOnly {
          try skip()
          let directory = try field()
          for _ in 0..<3 { try skip() }
          record = TaskRecord(
            fingerprint: fingerprint.isEmpty ? nil : fingerprint, operation: "", directory: directory,
            environment: "", dependencies: "", sources: [], outputs: [], values: [], outputDigest: "")
        } else {
          record = TaskRecord(
            fingerprint: fingerprint.isEmpty ? nil : fingerprint, operation: try field(), directory: try field(),
            environment: try field(), dependencies: try field(), sources: [], outputs: [], values: [],
            outputDigest: try field())
        }
      } else if kind == UInt8(ascii: "X") {
        records += 1
        if let name { changes.append((name, record)) }
        name = nil
        changes.append((try field(), nil))
      } else {
        guard name != nil else { throw malformed("a task's line before any task") }
        switch kind {
        case UInt8(ascii: "S"): record.sources.append(try file())
        case UInt8(ascii: "O"): record.outputs.append(try file())
        case UInt8(ascii: "V") where stampsOnly, UInt8(ascii: "D") where stampsOnly:
          while position < bytes.endIndex, bytes[position] == Self.tab { try skip() }
        case UInt8(ascii: "V"): record.values.append((try field(), try field()))
        case UInt8(ascii: "D"):
          // A later runner's outcome reads as none, and fields it adds are passed over.
          record.outcome = Outcome(rawValue: try field())
          record.why = try field()
          record.variables = try field()
          record.inputs = try field()
          while position < bytes.endIndex, bytes[position] == Self.tab { _ = try field() }
        case UInt8(ascii: "F"):
          guard let count = Int(try field()), count >= 0 else { throw malformed("a malformed count of files read") }
          record.discovered = []
          record.discovered!.reserveCapacity(min(count, 1 << 16))
        case UInt8(ascii: "I") where record.discovered != nil: record.discovered!.append(try file())
        case UInt8(ascii: "W"): record.walk = SourceWalk(key: try field(), listings: [], probes: [])
        case UInt8(ascii: "L") where record.walk != nil:
          let path = try field()
          guard let stamp = try stamp() else { throw malformed("a listing without a stamp") }
          record.walk!.listings.append(SourceWalk.Listing(path: path, stamp: stamp))
        case UInt8(ascii: "P") where record.walk != nil:
          let path = try field()
          let follow = try field()
          guard follow == "f" || follow == "l", let kind = SourceWalk.Kind(rawValue: try field()) else {
            throw malformed("a malformed probe")
          }
          record.walk!.probes.append(SourceWalk.Probe(path: path, follow: follow == "f", kind: kind))
        default: throw malformed("an unknown kind of line")
        }
      }
      guard position < bytes.endIndex, bytes[position] == Self.newline else { throw malformed("extra fields") }
      position += 1
    }
    if let name { changes.append((name, record)) }
    return changes
  }

  /// A segment that is a no-op record (`NoOpRecord+Codec.swift`): tasks, files, then the key.
  mutating func noOpRecord() throws(CacheError) -> NoOpRecord {
    var record = NoOpRecord(key: "", tasks: [])
    var recent: [NoOpRecord.File] = []
    var closed = false
    while position < bytes.endIndex {
      line += 1
      guard !closed else { throw malformed("a line after the record's key") }
      let kind = bytes[position]
      position += 1
      switch kind {
      case UInt8(ascii: "U"):
        record.tasks.append(NoOpRecord.Task(record: try field(), shown: try field(), fingerprint: try field()))
      case UInt8(ascii: "G"): record.tasks.append(NoOpRecord.Task(record: nil, shown: try field()))
      case UInt8(ascii: "R"):
        let path = try field()
        guard let stamp = try stamp() else { throw malformed("a file without a stamp") }
        recent.append(NoOpRecord.File(path: path, stamp: stamp))
      case UInt8(ascii: "S"): record.unvouched.append(try field())
      case UInt8(ascii: "N"):
        record.key = try field()
        record.taskFile = NoOpRecord.TaskFileDigests(bytes: try field(), content: try field())
        // Not in the records of earlier runners, which are read but never replayed.
        if position < bytes.endIndex, bytes[position] == Self.tab {
          guard let concurrency = Int(try field()) else { throw malformed("a concurrency that is not a number") }
          record.concurrency = concurrency
        }
        closed = true
      default: throw malformed("an unknown kind of line in a no-op record")
      }
      guard position < bytes.endIndex, bytes[position] == Self.newline else { throw malformed("extra fields") }
      position += 1
    }
    guard closed else { throw malformed("a no-op record without its key") }
    record.recent = recent.reversed()
    return record
  }

  private func malformed(_ what: String) -> CacheError {
    .corrupt(path, reason: "line \(line): \(what)")
  }

  /// The next field: a tab, then bytes up to the next tab or newline, with escapes undone.
  private mutating func field() throws(CacheError) -> String {
    guard position < bytes.endIndex, bytes[position] == Self.tab else { throw malformed("too few fields") }
    position += 1
    let start = position
    var escaped = false
    while position < bytes.endIndex {
      let byte = bytes[position]
      if byte == Self.tab || byte == Self.newline { break }
      if byte == UInt8(ascii: "\\") {
        escaped = true
        position += 1
      }
      position += 1
    }
    guard position <= bytes.endIndex else { throw malformed("a dangling escape") }
    let raw = UnsafeBufferPointer(rebasing: bytes[start..<position])
    guard escaped else { return String(decoding: raw, as: UTF8.self) }
    var unescaped: [UInt8] = []
    unescaped.reserveCapacity(raw.count)
    var index = 0
    while index < raw.count {
      var byte = raw[index]
      if byte == UInt8(ascii: "\\"), index + 1 < raw.count {
        index += 1
        byte = raw[index] == UInt8(ascii: "t") ? Self.tab : raw[index] == UInt8(ascii: "n") ? Self.newline : raw[index]
      }
      unescaped.append(byte)
      index += 1
    }
    return String(decoding: unescaped, as: UTF8.self)
  }

  /// Passes over the next field.
  private mutating func skip() throws(CacheError) {
    guard position < bytes.endIndex, bytes[position] == Self.tab else { throw malformed("too few fields") }
    position += 1
    while position < bytes.endIndex {
      let byte = bytes[position]
      if byte == Self.tab || byte == Self.newline { break }
      position += byte == UInt8(ascii: "\\") ? 2 : 1
    }
    guard position <= bytes.endIndex else { throw malformed("a dangling escape") }
  }

  /// A decimal integer field (an optional minus sign, then digits).
  private mutating func integer() throws(CacheError) -> Int64 {
    guard position < bytes.endIndex, bytes[position] == Self.tab else { throw malformed("too few fields") }
    position += 1
    var negative = false
    if position < bytes.endIndex, bytes[position] == UInt8(ascii: "-") {
      negative = true
      position += 1
    }
    var value: Int64 = 0
    var digits = 0
    while position < bytes.endIndex, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
      // Toward the sign, so that Int64.min reads too.
      let digit = Int64(bytes[position] - UInt8(ascii: "0"))
      let (times, overflow) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
      guard !overflow, !overflow2 else { throw malformed("a number out of range") }
      value = sum
      digits += 1
      position += 1
    }
    guard digits > 0 else { throw malformed("a malformed file stamp") }
    return value
  }

  /// Five integer fields, or five `-` for a file hashed too soon after it changed.
  private mutating func stamp() throws(CacheError) -> CacheFileSystem.Stamp? {
    if position + 2 < bytes.endIndex, bytes[position] == Self.tab, bytes[position + 1] == UInt8(ascii: "-"),
      bytes[position + 2] == Self.tab || bytes[position + 2] == Self.newline
    {
      for _ in 0..<5 { guard try field() == "-" else { throw malformed("a malformed file stamp") } }
      return nil
    }
    return CacheFileSystem.Stamp(
      device: try integer(), inode: try integer(), size: try integer(), modified: try integer(),
      changed: try integer())
  }

  private mutating func file() throws(CacheError) -> FileRecord {
    let path = try field()
    if stampsOnly {
      for _ in 0..<3 { try skip() }
      return FileRecord(path: path, content: nil, stamp: try stamp())
    }
    let hash = try field()
    let size = try integer()
    // `-` for no file; `missing` as format 5 wrote it before.
    let content = hash == "-" || hash == "missing" ? nil : ContentDigest(hash: hash, size: size)
    return FileRecord(path: path, content: content, executable: try field() == "x", stamp: try stamp())
  }
}
