#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which output rows a kernel's bands have written, seen as the prefix of complete rows,
/// so that an encoder can follow the kernel down the image while the bands run out of order.
final class BandCompletion: @unchecked Sendable {
  // @unchecked: `pending` and `prefix` are guarded by `mutex`.
  /// Publishes the complete prefix; the kernel's driver ends it when the kernel stops.
  let progress = RowProgress()
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  /// Finished runs of rows beyond the prefix: start → end.
  private var pending: [Int: Int] = [:]
  private var prefix = 0

  init() { pthread_mutex_init(mutex, nil) }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Output rows `rows` are written.
  func complete(_ rows: Range<Int>) {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    pending[rows.lowerBound] = rows.upperBound
    let before = prefix
    while let end = pending.removeValue(forKey: prefix) { prefix = end }
    // Published under the lock, so that two bands cannot publish out of order.
    if prefix != before { progress.publish(rows: prefix) }
  }
}
