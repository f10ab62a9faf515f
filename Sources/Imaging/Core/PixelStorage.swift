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
  init(count: Int) {
    // 64-byte alignment keeps SIMD loads on cache lines; RGBA words need 4 at least.
    let raw = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 64)
    raw.initializeMemory(as: UInt8.self, repeating: 0, count: max(count, 1))
    base = raw.assumingMemoryBound(to: UInt8.self)
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
