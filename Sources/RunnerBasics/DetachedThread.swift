import Glibc

/// A detached POSIX thread, outside every Swift executor: for work that blocks in the kernel
/// (`poll`, a file read) and must never hold up a cooperative thread.
package enum DetachedThread {
  /// Runs `body` on a new thread; false when none could be started (`body` then never runs).
  @discardableResult
  package static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
    final class Box {
      let body: @Sendable () -> Void
      init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(
      &thread, nil,
      { argument in
        Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
        return nil
      }, box)
    guard created == 0 else {
      Unmanaged<Box>.fromOpaque(box).release()
      return false
    }
    pthread_detach(thread)
    return true
  }
}
