import Glibc
import RunnerBasics

/// What the cache keeps of one successful run: output files, output values, the log, and an
/// image task's final image (PNG).
///
/// Stored as one file, in two parts:
/// - the **head**: a text header (`runner-cache 4`, `K fingerprint`, then `V key value`, `F path mode size
///   sha256`, `L size` and `I size` lines, then `end`), the log and image blobs, and a raw
///   SHA-256 of everything before it. Read whole and checked before any byte of it is used;
/// - the output files' contents, in header order, each checked against its own SHA-256 as it
///   is copied out (`CacheFileSystem.restore`). A file of 64 KiB or more starts at a multiple
///   of 4 096 bytes (zeros before it), so that its blocks can be shared with the output
///   (`CacheFileSystem+Clone`). So neither storing nor restoring holds a file in memory: a
///   300 MB output costs a 1 MiB buffer, and `peek` reads only the head.
package struct CacheEntry: Sendable {
  static let format = "runner-cache 4"

  package struct File: Sendable {
    /// As declared: relative to the task's directory, or absolute.
    package var path: String
    package var mode: UInt32
    package var size: Int64
    /// SHA-256 of the content, in hex.
    package var hash: String
    /// Where the content starts in the entry file (known once the entry is read).
    package var offset: Int64 = 0

    package init(path: String, mode: UInt32, size: Int64, hash: String) {
      self.path = path
      self.mode = mode
      self.size = size
      self.hash = hash
    }
  }

  /// Whole lines of one stream, each ending in a newline, as the task printed them.
  package struct LogChunk: Sendable {
    package var stream: OutputStreamKind
    package var bytes: [UInt8]

    package init(stream: OutputStreamKind, bytes: [UInt8]) {
      self.stream = stream
      self.bytes = bytes
    }
  }

  /// The fingerprint the entry was stored under: an entry found under another one (moved by
  /// hand, or a bug) is damage, not a hit.
  package var key = ""
  package var values: [(key: String, value: String)] = []
  package var files: [File] = []
  package var log: [LogChunk] = []
  package var image: [UInt8]?
  /// The entry file this was read from: restores copy the files' contents out of it.
  package var path = ""

  package init() {}

  /// The head: header, log, image and the checksum over them.
  func encodedHead() -> [UInt8] {
    var logBlob: [UInt8] = []
    for chunk in log {
      logBlob.append(chunk.stream == .stderr ? 1 : 0)
      withUnsafeBytes(of: UInt32(chunk.bytes.count).littleEndian) { logBlob.append(contentsOf: $0) }
      logBlob.append(contentsOf: chunk.bytes)
    }
    var out: [UInt8] = Array((Self.format + "\n").utf8)
    BuildState.line(&out, "K", [key])
    for value in values { BuildState.line(&out, "V", [value.key, value.value]) }
    for file in files { BuildState.line(&out, "F", [file.path, String(file.mode), String(file.size), file.hash]) }
    BuildState.line(&out, "L", [String(logBlob.count)])
    if let image { BuildState.line(&out, "I", [String(image.count)]) }
    out.append(contentsOf: "end\n".utf8)
    out.append(contentsOf: logBlob)
    if let image { out.append(contentsOf: image) }
    out.append(contentsOf: out.withUnsafeBytes { ContentHasher.rawDigest($0) })
    return out
  }

  /// Reads and checks an entry's head; the files' contents stay in the file.
  ///
  /// - Returns: nil for an entry an older runner wrote (a miss, not damage).
  /// - Throws: `CacheError.corrupt` if the checksum does not match or the layout is inconsistent.
  static func read(_ path: String) throws(CacheError) -> CacheEntry? {
    let (descriptor, info) = try CacheFileSystem.openRegular(path).get()
    defer { close(descriptor) }
    var reader = HeadReader(descriptor: descriptor, size: Int64(info.st_size), path: path)
    return try reader.read()
  }
}

/// Reads the head of an entry file: the header first, line by line as chunks arrive, then the
/// blobs it announces and the checksum.
private struct HeadReader {
  let descriptor: Int32
  let size: Int64
  let path: String
  var bytes: [UInt8] = []
  var cursor = 0

  init(descriptor: Int32, size: Int64, path: String) {
    self.descriptor = descriptor
    self.size = size
    self.path = path
  }

  /// A header longer than this is damage (a header line per output file and value).
  static let maximumHeader = 64 << 20

  mutating func read() throws(CacheError) -> CacheEntry? {
    var entry = CacheEntry()
    entry.path = path
    let first = try nextLine()
    if ["runner-cache 1", "runner-cache 2", "runner-cache 3"].contains(String(decoding: first, as: UTF8.self)) {
      return nil
    }
    guard String(decoding: first, as: UTF8.self) == CacheEntry.format else {
      throw .corrupt(path, reason: "unknown format")
    }
    var logSize = 0
    var imageSize: Int?
    while true {
      let line = try nextLine()
      if line.elementsEqual("end".utf8) { break }
      let fields = BuildState.split(line)
      switch (fields[0], fields.count) {
      case ("K", 2): entry.key = fields[1]
      case ("V", 3): entry.values.append((fields[1], fields[2]))
      case ("F", 5):
        guard let mode = UInt32(fields[2]), let size = Int64(fields[3]), size >= 0, size <= self.size,
          fields[4].utf8.count == 64
        else {
          throw .corrupt(path, reason: "malformed file line")
        }
        entry.files.append(CacheEntry.File(path: fields[1], mode: mode, size: size, hash: fields[4]))
      case ("L", 2): logSize = Int(fields[1]) ?? -1
      case ("I", 2): imageSize = Int(fields[1]) ?? -1
      default: throw .corrupt(path, reason: "unexpected header line")
      }
    }
    // Every size is at most the file's, and the files' sum stops at the first step past it,
    // so no sum here can overflow.
    guard logSize >= 0, Int64(logSize) <= size, (imageSize ?? 0) >= 0, Int64(imageSize ?? 0) <= size else {
      throw .corrupt(path, reason: "malformed size")
    }
    let headEnd = cursor + logSize + (imageSize ?? 0)
    // Each file where it starts (a big one at a block boundary: `contentOffset`).
    var expected = Int64(headEnd) + 32
    for index in entry.files.indices {
      entry.files[index].offset = CacheFileSystem.contentOffset(after: expected, size: entry.files[index].size)
      expected = entry.files[index].offset + entry.files[index].size
      guard expected <= size else { throw .corrupt(path, reason: "truncated") }
    }
    guard expected == size else {
      throw .corrupt(path, reason: expected > size ? "truncated" : "\(size - expected) trailing bytes")
    }
    try fill(to: headEnd + 32)
    guard bytes.count >= headEnd + 32 else { throw .corrupt(path, reason: "truncated") }
    let digest = bytes.withUnsafeBytes { ContentHasher.rawDigest(UnsafeRawBufferPointer(rebasing: $0[..<headEnd])) }
    guard digest[...] == bytes[headEnd..<(headEnd + 32)] else { throw .corrupt(path, reason: "checksum mismatch") }
    entry.log = try Self.chunks(bytes[cursor..<(cursor + logSize)], path: path)
    if imageSize != nil { entry.image = Array(bytes[(cursor + logSize)..<headEnd]) }
    return entry
  }

  static func chunks(_ blob: ArraySlice<UInt8>, path: String) throws(CacheError) -> [CacheEntry.LogChunk] {
    var chunks: [CacheEntry.LogChunk] = []
    var at = blob.startIndex
    while at < blob.endIndex {
      guard at + 5 <= blob.endIndex else { throw .corrupt(path, reason: "log truncated") }
      let length = Int(blob[at + 1]) | Int(blob[at + 2]) << 8 | Int(blob[at + 3]) << 16 | Int(blob[at + 4]) << 24
      let end = at + 5 + length
      guard length > 0, end <= blob.endIndex, blob[end - 1] == 0x0A else {
        throw .corrupt(path, reason: "log truncated")
      }
      guard blob[at] <= 1 else { throw .corrupt(path, reason: "log stream unknown") }
      chunks.append(CacheEntry.LogChunk(stream: blob[at] == 1 ? .stderr : .stdout, bytes: Array(blob[(at + 5)..<end])))
      at = end
    }
    return chunks
  }

  /// The next header line (without its newline), reading more of the file as needed.
  mutating func nextLine() throws(CacheError) -> ArraySlice<UInt8> {
    while true {
      if let newline = bytes[cursor...].firstIndex(of: 0x0A) {
        defer { cursor = newline + 1 }
        return bytes[cursor..<newline]
      }
      guard bytes.count < Self.maximumHeader, try fill(to: bytes.count + (64 << 10)) else {
        throw .corrupt(path, reason: "unterminated header")
      }
    }
  }

  /// Reads until `bytes` holds `count` bytes or the file ends.
  ///
  /// - Returns: whether anything was added.
  @discardableResult
  mutating func fill(to count: Int) throws(CacheError) -> Bool {
    let start = bytes.count
    guard count > start else { return false }
    bytes.append(contentsOf: repeatElement(0, count: count - start))
    var filled = start
    while filled < count {
      let got = bytes.withUnsafeMutableBytes {
        pread(descriptor, $0.baseAddress! + filled, count - filled, off_t(filled))
      }
      if got < 0, errno == EINTR { continue }
      guard got >= 0 else { throw .io(path, reason: CacheFileSystem.describe(errno)) }
      if got == 0 { break }
      filled += got
    }
    bytes.removeLast(count - filled)
    return filled > start
  }
}

extension CacheEntry {
  /// One output file's content, read from the entry file and checked against its hash.
  package func contents(of file: File) throws(CacheError) -> [UInt8] {
    let (descriptor, _) = try CacheFileSystem.openRegular(path).get()
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: Int(file.size))
    var filled = 0
    while filled < bytes.count {
      let got = bytes.withUnsafeMutableBytes {
        pread(descriptor, $0.baseAddress! + filled, $0.count - filled, off_t(file.offset) + off_t(filled))
      }
      if got < 0, errno == EINTR { continue }
      guard got > 0 else { throw .corrupt(path, reason: "'\(file.path)' is cut short") }
      filled += got
    }
    guard ContentHasher.sha256Hex(bytes) == file.hash else {
      throw .corrupt(path, reason: "'\(file.path)' does not match its checksum")
    }
    return bytes
  }
}
