/// Splits row-wise work into bands run in parallel, checking for cancellation between bands.
enum Bands {
  /// Roughly how many pixels one band covers: small enough that cancellation is noticed
  /// within a few milliseconds, large enough to amortise task overhead.
  static let pixelsPerBand = 1 << 17

  /// Runs `work` over `0..<rows` split into bands, in parallel on the global executor.
  ///
  /// - Parameters:
  ///   - rows: the number of output rows.
  ///   - rowCost: pixels of work per row (usually the width, times the taps for filters).
  ///   - work: processes one band of rows; must touch only those output rows.
  /// - Throws: `CancellationError` when the task is cancelled before every band has run.
  static func run(rows: Int, rowCost: Int, _ work: @escaping @Sendable (Range<Int>) -> Void) async throws {
    try Task.checkCancellation()
    let rowsPerBand = max(1, min(rows, pixelsPerBand / max(rowCost, 1)))
    if rowsPerBand >= rows {
      work(0..<rows)
      return
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for start in stride(from: 0, to: rows, by: rowsPerBand) {
        let band = start..<min(rows, start + rowsPerBand)
        group.addTask {
          try Task.checkCancellation()
          work(band)
        }
      }
      try await group.waitForAll()
    }
    try Task.checkCancellation()
  }
}

/// A pointer handed to band workers, each of which writes disjoint rows.
struct SharedPointer<Pointee>: @unchecked Sendable {
  let base: UnsafeMutablePointer<Pointee>
}
