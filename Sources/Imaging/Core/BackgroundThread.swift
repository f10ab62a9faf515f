#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Starts a detached POSIX thread, outside every Swift executor.
///
/// The JPEG band decoder and encoder run on these: kernels' row bands block waiting for
/// them, which must never starve them of a thread.
enum BackgroundThread {
  /// - Throws: `ImagingError.invalidArgument` naming `purpose` when no thread can be started.
  static func start(_ purpose: String, _ body: @escaping @Sendable () -> Void) throws(ImagingError) {
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
      throw .invalidArgument(operation: purpose, reason: "cannot start a thread: \(FileIO.errnoText(created))")
    }
    pthread_detach(thread)
  }
}
