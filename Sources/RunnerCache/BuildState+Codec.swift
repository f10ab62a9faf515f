/// The state file's format: text lines of tab-separated, escaped fields, then a SHA-256 trailer.
///
/// ```
/// runner-state 1
/// T name fingerprint operation directory environment dependencies outputDigest
/// S path hash device inode size mtime ctime      (a source of the task above; "-" stamp: none)
/// O path hash device inode size mtime ctime      (an output file)
/// V key value                                    (an output value)
/// W key                                          (how the sources were found: `SourceWalk`)
/// L path device inode size mtime ctime           (a directory listed)
/// P path f|l absent|directory|other              (a path looked up, following links or not)
/// sha256 <hex of every byte above this line>
/// ```
///
/// A line-based format rather than JSON keeps the no-op path (tens of thousands of lines)
/// fast with a byte-level parser and no Foundation.
extension BuildState {
  func encoded() -> [UInt8] {
    var out = LineWriter()
    out.bytes.reserveCapacity(tasks.count * 1024)
    out.bytes.append(contentsOf: "runner-state \(Self.formatVersion)\n".utf8)
    for name in tasks.keys.sorted() {
      let record = tasks[name]!
      out.line(
        "T",
        [
          name, record.fingerprint, record.operation, record.directory, record.environment, record.dependencies,
          record.outputDigest,
        ])
      for file in record.sources { out.line("S", file: file) }
      for file in record.outputs { out.line("O", file: file) }
      for value in record.values { out.line("V", [value.key, value.value]) }
      if let walk = record.walk {
        out.line("W", [walk.key])
        for listing in walk.listings { out.line("L", path: listing.path, stamp: listing.stamp) }
        for probe in walk.probes { out.line("P", [probe.path, probe.follow ? "f" : "l", probe.kind.rawValue]) }
      }
    }
    out.appendTrailer()
    return out.bytes
  }

  /// - Throws: `CacheError.corrupt` for a wrong trailer, a truncated file or a malformed line.
  init(decoding bytes: [UInt8], path: String) throws(CacheError) {
    let bodyEnd: Int
    switch LineWriter.checkTrailer(bytes) {
    case .body(let end): bodyEnd = end
    case .truncated: throw .corrupt(path, reason: "truncated")
    case .mismatch: throw .corrupt(path, reason: "checksum mismatch")
    }
    let decoded = try bytes.withUnsafeBufferPointer { buffer throws(CacheError) in
      var reader = StateReader(buffer[..<bodyEnd], path: path)
      return try reader.tasks()
    }
    tasks = decoded
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
