extension MakeExpander {
  /// Expands `text`, written at `line`, into pieces.
  ///
  /// Bounded, as make is not: `X2 = $(X1)$(X1)` forty times over is a small file whose value
  /// has 2⁴⁰ characters. One expansion yields at most `maximumLength` characters, and an
  /// import expands at most 16 times the Makefile's size, and at least `maximumExpansion`, in
  /// all (each expansion counting its text, what it yields, and 16 more); past either, what is
  /// left is taken as empty and the import says so.
  mutating func expand(_ text: String, line: Int, mode: Mode) -> [MakePiece] {
    guard depth < 200 else {
      met.failed = true
      notCarried(String(text.prefix(40)) + "…", at: line, "nested too deeply to expand: taken as empty")
      return []
    }
    guard budget.expanded <= budget.limit else {
      met.failed = true
      // Said once, and not by a quiet probe (the expansion that is kept says it).
      if !budget.spent, !quiet {
        budget.spent = true
        notCarried(
          String(text.prefix(40)) + "…", at: line,
          "the Makefile expands to more than \(budget.limit >> 20) MiB of text (16 times its size, at least "
            + "\(Self.maximumExpansion >> 20) MiB): the rest is taken as empty")
      }
      return []
    }
    // Each expansion costs its text and a little more, whatever it yields: a reference to a
    // param yields almost nothing, and 4⁴⁰ of them are still too many to visit.
    budget.expanded += 16 + text.utf8.count
    let pieces = expandUnbounded(text, line: line, mode: mode)
    var length = 0
    for case .text(let text) in pieces { length += text.utf8.count }
    budget.expanded += length
    guard length <= Self.maximumLength else {
      met.failed = true
      notCarried(
        String(text.prefix(40)) + "…", at: line,
        "expands to more than \(Self.maximumLength >> 20) MiB of text: taken as empty")
      return []
    }
    return pieces
  }

  static let maximumLength = 1 << 20
  static let maximumExpansion = 32 << 20

  /// Characters expanded so far in this import, and whether running out of them was said: a
  /// class, so that the quiet probes (copies of the expander) spend from the same budget.
  final class Budget {
    var expanded = 0
    var limit = MakeExpander.maximumExpansion
    var spent = false
  }
}
