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
    let size = max(count, 1)
    var raw: UnsafeMutableRawPointer?
    if size >= Self.hugePageSize {
      // Transparent huge pages: a 48 MB image then takes 24 page faults instead of 12 000,
      // which was a fifth of a 12-megapixel blur's CPU time (THP "madvise" mode is common).
      guard posix_memalign(&raw, Self.hugePageSize, size) == 0, let raw else {
        fatalError("cannot allocate \(size) bytes of pixels")
      }
      #if canImport(Glibc)
        madvise(raw, size, MADV_HUGEPAGE)
      #endif
    } else {
      // 64-byte alignment keeps SIMD loads on cache lines; RGBA words need 4 at least.
      guard posix_memalign(&raw, 64, size) == 0 else { fatalError("cannot allocate \(size) bytes of pixels") }
    }
    base = raw!.bindMemory(to: UInt8.self, capacity: size)
    self.count = count
  }

  private static let hugePageSize = 2 << 20

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
    free(base)
  }
}
