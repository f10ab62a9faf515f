/// A key the live view acts on, read from the terminal in raw mode.
enum LiveKey: Equatable {
  case up, down, pageUp, pageDown, home, end
  /// `f`: only failed tasks, or all again.
  case failedOnly
  /// Ctrl-L: draw the whole screen again.
  case repaint

  /// The keys in the bytes read at once. A sequence the view does not know is skipped whole,
  /// so its tail is not read as keys.
  static func parse(_ bytes: [UInt8]) -> [LiveKey] {
    var keys: [LiveKey] = []
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      switch byte {
      case 0x1B:
        guard index < bytes.count, bytes[index] == 0x5B || bytes[index] == 0x4F else { continue }
        index += 1
        // Parameters, then the final byte.
        var parameters: [UInt8] = []
        while index < bytes.count, bytes[index] >= 0x20, bytes[index] < 0x40 {
          parameters.append(bytes[index])
          index += 1
        }
        guard index < bytes.count else { break }
        let final = bytes[index]
        index += 1
        if let key = sequence(final: final, parameters: parameters) { keys.append(key) }
      case UInt8(ascii: "k"): keys.append(.up)
      case UInt8(ascii: "j"): keys.append(.down)
      case UInt8(ascii: "g"): keys.append(.home)
      case UInt8(ascii: "G"): keys.append(.end)
      case UInt8(ascii: "f"): keys.append(.failedOnly)
      case 0x0C: keys.append(.repaint)  // Ctrl-L
      case 0x15, 0x02: keys.append(.pageUp)  // Ctrl-U, Ctrl-B
      case 0x04, 0x06, UInt8(ascii: " "): keys.append(.pageDown)  // Ctrl-D, Ctrl-F
      default: break
      }
    }
    return keys
  }

  /// `ESC [ A` and the like (and `ESC O A`, the application-mode form).
  private static func sequence(final: UInt8, parameters: [UInt8]) -> LiveKey? {
    switch final {
    case UInt8(ascii: "A"): return .up
    case UInt8(ascii: "B"): return .down
    case UInt8(ascii: "H"): return .home
    case UInt8(ascii: "F"): return .end
    case UInt8(ascii: "~"):
      switch String(decoding: parameters, as: UTF8.self) {
      case "5": return .pageUp
      case "6": return .pageDown
      case "1", "7": return .home
      case "4", "8": return .end
      default: return nil
      }
    default: return nil
    }
  }
}

extension LiveKey {
  /// The end of `bytes` that may be the start of a key not yet read whole (`ESC [ 5` before
  /// its `~`): kept for the next read.
  static func incomplete(_ bytes: [UInt8]) -> [UInt8] {
    guard let escape = bytes.lastIndex(of: 0x1B) else { return [] }
    let tail = Array(bytes[escape...])
    if tail.count == 1 { return tail }
    guard tail[1] == 0x5B || tail[1] == 0x4F, tail.count < 16 else { return [] }
    return tail.dropFirst(2).contains { $0 >= 0x40 && $0 <= 0x7E } ? [] : tail
  }
}
