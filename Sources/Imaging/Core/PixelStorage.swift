#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The heap buffer behind `PixelImage`.
///
/// - Important: it is `@unchecked Sendable` because it is only written while a single
///   kernel or codec owns it (before it is wrapped in a `PixelImage`, or after a
///   uniqueness check); shared instances are read-only.
final class PixelStorage: @unchecked Sendable {
  let base: UnsafeMutablePointer<UInt8>
  let count: Int

  /// Allocates `count` bytes, zero-filled.
  convenience init(count: Int) {
    self.init(uninitializedCount: count)
    base.initialize(repeating: 0, count: max(count, 1))
  }

  /// Allocates `count` bytes with unspecified contents, for a kernel or codec that writes
  /// every byte.
  ///
  /// Skipping the zero fill matters for large images: it is a serial pass over the whole
  /// buffer, and it would take the first-touch page faults on one thread instead of
  /// leaving them to the parallel workers that fill the buffer.
  init(uninitializedCount count: Int) {
    // 64-byte alignment keeps SIMD loads on cache lines; RGBA words need 4 at least.
    let raw = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 64)
    base = raw.bindMemory(to: UInt8.self, capacity: max(count, 1))
    self.count = count
  }

  /// The same bytes seen as one little-endian RGBA word per pixel.
  var words: UnsafeMutablePointer<UInt32> {
    UnsafeMutableRawPointer(base).assumingMemoryBound(to: UInt32.self)
  }

  func copy() -> PixelStorage {
    let other = PixelStorage(count: count)
    other.base.update(from: base, count: count)
    return other
  }

  deinit {
    UnsafeMutableRawPointer(base).deallocate()
  }
}
