import Glibc
import RunnerBasics

/// The Language Server Protocol's base protocol on two descriptors: each message is
/// `Content-Length: N` (and perhaps `Content-Type`) headers, a blank line, then N bytes of JSON.
struct MessageChannel {
  /// What waiting for the next message gave.
  enum Incoming {
    case message(JSONValue)
    /// A frame that is not JSON (answered with a parse error; the channel goes on).
    case malformed(String)
    /// The deadline passed with no whole message.
    case timedOut
    /// The input ended, or framing was lost (a header without a length, a body too large).
    case ended
  }

  /// A message larger than this ends the session: no editor sends one, and it would be held whole.
  static let largestMessage = 64 << 20

  let input: Int32
  let output: Int32
  private var buffer: [UInt8] = []
  private var start = 0
  private var inputEnded = false

  init(input: Int32, output: Int32) {
    self.input = input
    self.output = output
  }

  /// The next message, waiting until `deadline` (nil: as long as it takes).
  mutating func receive(until deadline: ContinuousClock.Instant?) -> Incoming {
    while true {
      switch takeFrame() {
      case .some(let incoming): return incoming
      case nil: break
      }
      if inputEnded { return .ended }
      var wait: Int32 = -1
      if let deadline {
        let left = ContinuousClock.now.duration(to: deadline)
        if left <= .zero { return .timedOut }
        let (seconds, attoseconds) = left.components
        wait = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
      }
      var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
      let ready = poll(&descriptor, 1, wait)
      if ready < 0 {
        if errno == EINTR { continue }
        return .ended
      }
      if ready == 0 { continue }
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      let count = read(input, &chunk, chunk.count)
      if count < 0, errno == EINTR || errno == EAGAIN { continue }
      if count <= 0 {
        inputEnded = true
        continue
      }
      // What earlier frames used is let go before it piles up.
      if start > 0, start == buffer.count || start >= 1 << 20 || start >= buffer.count / 2 {
        buffer.removeSubrange(..<start)
        start = 0
      }
      buffer.append(contentsOf: chunk[..<count])
    }
  }

  /// A whole frame from the buffer; nil when more bytes are needed.
  private mutating func takeFrame() -> Incoming? {
    let separator: [UInt8] = [13, 10, 13, 10]
    guard buffer.count - start >= 4 else { return nil }
    var end: Int?
    var index = start
    while index + 4 <= buffer.count {
      if buffer[index] == 13, buffer[index..<index + 4].elementsEqual(separator) {
        end = index
        break
      }
      index += 1
    }
    guard let headerEnd = end else {
      // Headers never run this long: the framing is lost.
      return buffer.count - start > 8192 ? .ended : nil
    }
    var length: Int?
    for line in String(decoding: buffer[start..<headerEnd], as: UTF8.self).split(separator: "\r\n") {
      let parts = line.split(separator: ":", maxSplits: 1)
      if parts.count == 2, parts[0].lowercased() == "content-length" {
        length = Int(parts[1].trimmingCharacters(in: " \t"))
      }
    }
    guard let length, length >= 0, length <= Self.largestMessage else { return .ended }
    let bodyStart = headerEnd + 4
    guard buffer.count - bodyStart >= length else { return nil }
    let body = Array(buffer[bodyStart..<bodyStart + length])
    start = bodyStart + length
    if start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
    }
    do {
      return .message(try JSONValue.parse(body))
    } catch {
      return .malformed(error.description)
    }
  }

  /// Writes one message whole (a closed output is dropped: the client is gone).
  func send(_ message: JSONValue) {
    let body = Array(message.serialized().utf8)
    let bytes = Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
    var written = 0
    while written < bytes.count {
      let count = bytes[written...].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        return
      }
      written += count
    }
  }
}

extension Substring {
  func trimmingCharacters(in set: String) -> String {
    var result = self
    while let first = result.first, set.contains(first) { result.removeFirst() }
    while let last = result.last, set.contains(last) { result.removeLast() }
    return String(result)
  }
}
