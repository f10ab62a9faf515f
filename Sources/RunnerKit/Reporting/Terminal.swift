import Glibc

/// Raw writes to the standard streams and the colour decision.
public enum Terminal {
  /// Writes all of `text`, retrying short writes. A closed pipe (`runner | head -1`) is
  /// not an error worth a crash: the bytes are dropped and `brokenPipe` is set.
  public static func write(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { write($0, to: descriptor) }
  }

  public static func write(_ bytes: UnsafeBufferPointer<UInt8>, to descriptor: Int32) {
    guard var pointer = bytes.baseAddress else { return }
    var remaining = bytes.count
    while remaining > 0 {
      let written = Glibc.write(descriptor, pointer, remaining)
      if written < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        return
      }
      pointer += written
      remaining -= written
    }
  }

  /// Colour is for people: a terminal, no NO_COLOR, TERM not dumb; CLICOLOR_FORCE forces it.
  public static func colorEnabled(for descriptor: Int32) -> Bool {
    if let force = getenv("CLICOLOR_FORCE"), String(cString: force) != "0" { return true }
    if getenv("NO_COLOR") != nil { return false }
    if let term = getenv("TERM"), String(cString: term) == "dumb" { return false }
    return isatty(descriptor) == 1
  }

  public static var processorCount: Int {
    max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
  }
}
