import RunnerBasics

/// What the cache keeps of one successful run: output files, output values, the log, and an
/// image task's final image (PNG).
///
/// Stored as one file: a text header (`runner-cache 1`, then `V key value`, `F path mode size`,
/// `L size`, `I size` lines, then `end`), the blobs in header order, and a raw SHA-256 of
/// everything before it. A reader checks the trailer before using any byte.
package struct CacheEntry: Sendable {
  package struct File: Sendable {
    package var path: String
    package var mode: UInt32
    package var bytes: [UInt8]

    package init(path: String, mode: UInt32, bytes: [UInt8]) {
      self.path = path
      self.mode = mode
      self.bytes = bytes
    }
  }

  package struct LogLine: Sendable {
    package var stream: OutputStreamKind
    package var bytes: [UInt8]

    package init(stream: OutputStreamKind, bytes: [UInt8]) {
      self.stream = stream
      self.bytes = bytes
    }
  }

  package var values: [(key: String, value: String)] = []
  package var files: [File] = []
  package var log: [LogLine] = []
  package var image: [UInt8]?

  func encoded() -> [UInt8] {
    var logBlob: [UInt8] = []
    for line in log {
      logBlob.append(line.stream == .stderr ? 1 : 0)
      withUnsafeBytes(of: UInt32(line.bytes.count).littleEndian) { logBlob.append(contentsOf: $0) }
      logBlob.append(contentsOf: line.bytes)
    }
    var out: [UInt8] = Array("runner-cache 1\n".utf8)
    for value in values { BuildState.line(&out, "V", [value.key, value.value]) }
    for file in files { BuildState.line(&out, "F", [file.path, String(file.mode), String(file.bytes.count)]) }
    BuildState.line(&out, "L", [String(logBlob.count)])
    if let image { BuildState.line(&out, "I", [String(image.count)]) }
    out.append(contentsOf: "end\n".utf8)
    for file in files { out.append(contentsOf: file.bytes) }
    out.append(contentsOf: logBlob)
    if let image { out.append(contentsOf: image) }
    out.append(contentsOf: out.withUnsafeBytes { ContentHasher.rawDigest($0) })
    return out
  }

  /// - Throws: `CacheError.corrupt` if the trailer does not match or the layout is inconsistent.
  init(decoding bytes: [UInt8], path: String) throws(CacheError) {
    guard bytes.count >= 32 else { throw .corrupt(path, reason: "truncated") }
    let bodyEnd = bytes.count - 32
    let digest = bytes.withUnsafeBytes { ContentHasher.rawDigest(UnsafeRawBufferPointer(rebasing: $0[..<bodyEnd])) }
    guard digest[...] == bytes[bodyEnd...] else { throw .corrupt(path, reason: "checksum mismatch") }
    var cursor = 0
    func nextLine() throws(CacheError) -> ArraySlice<UInt8> {
      guard let newline = bytes[cursor..<bodyEnd].firstIndex(of: UInt8(ascii: "\n")) else {
        throw .corrupt(path, reason: "unterminated header")
      }
      defer { cursor = newline + 1 }
      return bytes[cursor..<newline]
    }
    guard String(decoding: try nextLine(), as: UTF8.self) == "runner-cache 1" else {
      throw .corrupt(path, reason: "unknown format")
    }
    var sizes: [Int] = []
    var logSize = 0
    var imageSize: Int?
    while true {
      let line = try nextLine()
      if line.elementsEqual("end".utf8) { break }
      let fields = BuildState.split(line)
      switch (fields[0], fields.count) {
      case ("V", 3): values.append((fields[1], fields[2]))
      case ("F", 4):
        guard let mode = UInt32(fields[2]), let size = Int(fields[3]), size >= 0 else {
          throw .corrupt(path, reason: "malformed file line")
        }
        files.append(File(path: fields[1], mode: mode, bytes: []))
        sizes.append(size)
      case ("L", 2): logSize = Int(fields[1]) ?? -1
      case ("I", 2): imageSize = Int(fields[1]) ?? -1
      default: throw .corrupt(path, reason: "unexpected header line")
      }
    }
    func blob(_ size: Int) throws(CacheError) -> [UInt8] {
      guard size >= 0, size <= bodyEnd - cursor else { throw .corrupt(path, reason: "blob past the end") }
      defer { cursor += size }
      return Array(bytes[cursor..<(cursor + size)])
    }
    for index in files.indices { files[index].bytes = try blob(sizes[index]) }
    let logBlob = try blob(logSize)
    if let imageSize { image = try blob(imageSize) }
    guard cursor == bodyEnd else { throw .corrupt(path, reason: "trailing bytes") }
    var at = 0
    while at < logBlob.count {
      guard at + 5 <= logBlob.count else { throw .corrupt(path, reason: "log truncated") }
      let length =
        Int(logBlob[at + 1]) | Int(logBlob[at + 2]) << 8 | Int(logBlob[at + 3]) << 16 | Int(logBlob[at + 4]) << 24
      guard at + 5 + length <= logBlob.count else { throw .corrupt(path, reason: "log truncated") }
      log.append(
        LogLine(stream: logBlob[at] == 1 ? .stderr : .stdout, bytes: Array(logBlob[(at + 5)..<(at + 5 + length)])))
      at += 5 + length
    }
  }

  package init() {}
}
