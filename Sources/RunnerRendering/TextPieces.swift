/// Renderers write their text in pieces of about 1 MiB (`write(…, to: emit)`), so that the
/// output for a million tasks is never held whole; `render` collects the pieces.
enum TextPieces {
  static let size = 1 << 20

  /// Hands `out` to `emit` and empties it once it holds a piece.
  static func flush(_ out: inout String, to emit: (String) -> Void) {
    if out.utf8.count >= size {
      emit(out)
      out = ""
    }
  }

  /// Everything `write` emits, as one string.
  static func collect(_ write: ((String) -> Void) -> Void) -> String {
    var text = ""
    write { text += $0 }
    return text
  }
}
