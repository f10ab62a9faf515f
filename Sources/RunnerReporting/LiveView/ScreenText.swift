/// Text as the live view puts it on the screen: one row of plain characters, measured in
/// terminal columns.
///
/// Task output is not the view's to interpret: escape sequences (colours, cursor moves, titles)
/// are removed, a carriage return keeps what came after it (the last state of a progress line),
/// a tab becomes spaces and other control characters are dropped. Nothing a task prints can
/// move the view's cursor or change the terminal's modes.
enum ScreenText {
  /// One output line (without its newline) as shown, cut to `width` columns.
  static func line(_ bytes: UnsafeRawBufferPointer, width: Int) -> String {
    var end = bytes.count
    // A line ending in \r\n shows what came before the \r.
    while end > 0, bytes[end - 1] == 0x0D { end -= 1 }
    var start = 0
    var index = end
    while index > 0 {
      index -= 1
      if bytes[index] == 0x0D {
        start = index + 1
        break
      }
    }
    let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    return plain(text, width: width)
  }

  /// `text` without escape sequences and control characters, tabs expanded, cut to `width`
  /// columns; a cut one ends in `…`.
  static func plain(_ text: String, width: Int) -> String {
    var out: [Unicode.Scalar] = []
    var cells: [Int] = []
    var column = 0
    var escape = EscapeState.none
    var cut = false
    for scalar in text.unicodeScalars {
      if escape.consume(scalar) { continue }
      let value = scalar.value
      if value == 0x1B {
        escape = .start
        continue
      }
      if value == 0x09 {
        let spaces = 8 - column % 8
        if column + spaces > width {
          cut = true
          break
        }
        out.append(contentsOf: repeatElement(" ", count: spaces))
        cells.append(contentsOf: repeatElement(1, count: spaces))
        column += spaces
        continue
      }
      // C0 and C1 controls, and DEL.
      if value < 0x20 || (value >= 0x7F && value < 0xA0) {
        if value == 0x9B { escape = .csi }
        continue
      }
      let taken = columns(of: scalar)
      if column + taken > width {
        cut = true
        break
      }
      out.append(scalar)
      cells.append(taken)
      column += taken
    }
    if cut, width > 0 {
      while column + 1 > width, let last = cells.popLast() {
        out.removeLast()
        column -= last
      }
      out.append("…")
    }
    var view = String.UnicodeScalarView()
    view.append(contentsOf: out)
    return String(view)
  }

  /// Where a scalar stands in an escape sequence (ECMA-48): the sequence is skipped whole.
  enum EscapeState {
    case none
    /// Just after ESC.
    case start
    /// A control sequence (`ESC [`): parameters up to a final byte 0x40–0x7E.
    case csi
    /// A string (`ESC ]`, `ESC P`, `ESC _`, `ESC ^`, `ESC X`): up to BEL or `ESC \`.
    case string
    /// ESC inside a string: the `\` of its terminator.
    case stringEscape
    /// `ESC (` and the like: one more character.
    case oneMore

    /// Whether the scalar belongs to the sequence (and is skipped); moves on.
    mutating func consume(_ scalar: Unicode.Scalar) -> Bool {
      let value = scalar.value
      switch self {
      case .none: return false
      case .start:
        switch value {
        case 0x5B: self = .csi
        case 0x5D, 0x50, 0x5F, 0x5E, 0x58: self = .string
        case 0x20...0x2F: self = .oneMore
        default: self = .none
        }
      case .csi:
        if value >= 0x40 && value <= 0x7E || value < 0x20 { self = .none }
      case .string:
        if value == 0x07 || value == 0x9C { self = .none } else if value == 0x1B { self = .stringEscape }
      case .stringEscape:
        self = value == 0x5C ? .none : .string
      case .oneMore:
        self = .none
      }
      return true
    }
  }

  /// The columns a character takes: 0 for a combining mark or a zero-width one, 2 for an East
  /// Asian wide or full-width one or an emoji, else 1. (An approximation of wcwidth.)
  static func columns(of scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if value < 0x300 { return 1 }
    switch value {
    case 0x300...0x36F, 0x200B...0x200F, 0x20D0...0x20FF, 0xFE00...0xFE0F, 0xFE20...0xFE2F: return 0
    case 0x1100...0x115F, 0x231A...0x231B, 0x23E9...0x23EC, 0x23F0, 0x23F3, 0x25FD...0x25FE, 0x2614...0x2615,
      0x2648...0x2653, 0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE, 0x26D4,
      0x26EA, 0x26F2...0x26F3, 0x26F5, 0x26FA, 0x26FD, 0x2705, 0x270A...0x270B, 0x2728, 0x274C, 0x274E,
      0x2753...0x2755, 0x2757, 0x2795...0x2797, 0x27B0, 0x27BF, 0x2B1B...0x2B1C, 0x2B50, 0x2B55, 0x2E80...0x303E,
      0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF,
      0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A,
      0x1F200...0x1F2FF, 0x1F300...0x1F64F, 0x1F680...0x1F6FF, 0x1F7E0...0x1F7EB, 0x1F900...0x1F9FF,
      0x1FA70...0x1FAFF, 0x20000...0x3FFFD:
      return 2
    default: return 1
    }
  }

  /// The columns `text` takes (it holds no control characters).
  static func width(_ text: String) -> Int {
    text.unicodeScalars.reduce(0) { $0 + columns(of: $1) }
  }

  /// `text` cut or padded with spaces to exactly `width` columns; a cut one ends in `…`.
  static func fit(_ text: String, _ width: Int) -> String {
    guard width > 0 else { return "" }
    let measured = self.width(text)
    if measured <= width { return text + String(repeating: " ", count: width - measured) }
    var out = String.UnicodeScalarView()
    var column = 0
    for scalar in text.unicodeScalars {
      let cells = columns(of: scalar)
      if column + cells > width - 1 { break }
      out.append(scalar)
      column += cells
    }
    out.append("…")
    column += 1
    return String(out) + String(repeating: " ", count: max(0, width - column))
  }
}
