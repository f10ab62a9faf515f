import Glibc
import RunnerBasics

/// The terminal while the live view has it: the alternate screen, keys read one at a time
/// without echo (Ctrl-C and Ctrl-Z still signals; Ctrl-S does not freeze it), no cursor, no line
/// wrap; and what runner itself writes to stdout and stderr kept until the view leaves
/// (`Terminal.startDiverting`).
///
/// `leave` puts back everything `enter` changed. Used by the view's thread alone.
struct LiveTerminal {
  let input: Int32
  let output: Int32
  /// The terminal's modes before the view first had it (an interactive task may leave others).
  private var saved: termios?
  private var previous: [String] = []
  private(set) var entered = false
  private(set) var size = (width: 80, height: 24)

  init(input: Int32, output: Int32) {
    self.input = input
    self.output = output
  }

  /// Why the view cannot have this terminal, nil when it can: it needs stdin and stdout to be
  /// a terminal with runner in its foreground, TERM set and not dumb, and no CI.
  static func unavailability(input: Int32 = 0, output: Int32 = 1) -> Unavailable? {
    if let ci = getenv("CI"), ci.pointee != 0 { return .ci }
    if isatty(output) != 1 { return .because("stdout is not a terminal") }
    if isatty(input) != 1 { return .because("stdin is not a terminal") }
    if tcgetpgrp(input) != getpgrp() { return .because("runner is not in the terminal's foreground") }
    guard let term = getenv("TERM"), !String(cString: term).isEmpty else { return .because("TERM is not set") }
    if String(cString: term) == "dumb" { return .because("TERM is dumb") }
    return nil
  }

  enum Unavailable {
    /// CI is set: lines, without a word.
    case ci
    case because(String)
  }

  static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[H\u{1B}[2J"
  static let leaveSequence = "\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"

  /// Whether runner is in the terminal's foreground (after `bg`, it is not: changing the
  /// terminal's modes would stop it with SIGTTOU).
  var inForeground: Bool { tcgetpgrp(input) == getpgrp() }

  /// Takes the screen, when runner is in the foreground.
  mutating func enter() {
    guard !entered, inForeground else { return }
    if saved == nil {
      var modes = termios()
      guard tcgetattr(input, &modes) == 0 else { return }
      saved = modes
    }
    guard var raw = saved else { return }
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO | IEXTEN)
    raw.c_iflag &= ~tcflag_t(IXON)
    withUnsafeMutableBytes(of: &raw.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    tcsetattr(input, TCSANOW, &raw)
    // Diverted before the screen changes: nothing runner writes lands on the view's screen.
    Terminal.startDiverting()
    Terminal.writeToScreen(Self.enterSequence, to: output)
    previous = []
    entered = true
  }

  mutating func leave() {
    guard entered else { return }
    entered = false
    Terminal.writeToScreen(Self.leaveSequence, to: output)
    if var modes = saved { tcsetattr(input, TCSANOW, &modes) }
    // What runner said meanwhile, now where it belongs.
    Terminal.endDiverting()
  }

  /// Reads the terminal's size; true when it changed (the next frame is drawn whole).
  mutating func measure() -> Bool {
    var window = winsize()
    guard ioctl(output, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else { return false }
    let now = (width: Int(window.ws_col), height: Int(window.ws_row))
    guard now != size else { return false }
    size = now
    previous = []
    return true
  }

  /// The next frame is drawn whole (Ctrl-L: something else wrote on the screen).
  mutating func repaint() {
    previous = []
  }

  /// Draws the rows that differ from the last frame, in one write.
  mutating func draw(_ frame: [String]) {
    guard entered else { return }
    var text = previous.isEmpty ? "\u{1B}[H\u{1B}[2J" : ""
    for (index, row) in frame.enumerated() where index >= previous.count || previous[index] != row {
      // Erased first: erasing after a full-width row would take its last column too.
      text += "\u{1B}[\(index + 1);1H\u{1B}[2K" + row + "\u{1B}[0m"
    }
    previous = frame
    if !text.isEmpty { Terminal.writeToScreen(text, to: output) }
  }
}
