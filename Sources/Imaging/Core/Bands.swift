#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Splits row-wise work into bands run in parallel, with cooperative cancellation.
enum Bands {
  /// Bands per core: a few, so that uneven progress still keeps every core busy.
  static let bandsPerCore = 4

  /// Workers check for cancellation at least this often (in output rows).
  static let rowsBetweenChecks = 8

  static let coreCount = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

  /// Runs `work` over `0..<rows` split into bands, in parallel on the global executor.
  ///
  /// Workers should call `Bands.isCancelled(row:)` as they go and return early when it
  /// says so; a cancelled run then throws here, so a long kernel stops within a few rows.
  ///
  /// - Parameters:
  ///   - rows: the number of output rows.
  ///   - minimumRows: the smallest band worth a task.
  ///   - work: processes one band of rows; must write only those output rows.
  /// - Throws: `CancellationError` when the task was cancelled before all bands finished.
  static func run(rows: Int, minimumRows: Int = 16, _ work: @escaping @Sendable (Range<Int>) -> Void) async throws {
    try Task.checkCancellation()
    let bandCount = max(1, min(coreCount * bandsPerCore, rows / max(minimumRows, 1)))
    if bandCount == 1 {
      work(0..<rows)
    } else {
      await withTaskGroup(of: Void.self) { group in
        for index in 0..<bandCount {
          let band = (rows * index / bandCount)..<(rows * (index + 1) / bandCount)
          group.addTask {
            if !Task.isCancelled { work(band) }
          }
        }
      }
    }
    try Task.checkCancellation()
  }

  /// Whether a worker should stop now; polls the task's cancellation every few rows.
  @inline(__always)
  static func isCancelled(row: Int) -> Bool {
    row % rowsBetweenChecks == 0 && Task.isCancelled
  }
}

/// A pointer handed to band workers, each of which writes disjoint rows.
struct SharedPointer<Pointee>: @unchecked Sendable {
  let base: UnsafeMutablePointer<Pointee>
}
