import Glibc

/// Reflinks: on a file system that shares blocks between files (XFS, Btrfs, bcachefs), a big
/// output goes into a cache entry and back out without its bytes being copied — the blocks are
/// shared (`FICLONERANGE`) and only read once, to check their hash (`copy` to no target). Elsewhere (ext4, tmpfs) the
/// call fails at once and the bytes are copied.
extension CacheFileSystem {
  /// Files at least this big start at a multiple of `cloneAlignment` in an entry, so that their
  /// blocks can be shared; smaller ones are copied (one block or a few).
  static let cloneMinimum: Int64 = 64 << 10
  static let cloneAlignment: Int64 = 4096

  /// `_IOW(0x94, 13, struct file_clone_range)` of linux/fs.h.
  private static let ficlonerange: UInt = 0x4020_940D

  /// Where a file of `size` bytes starts in an entry, when the one before it ended at `end`.
  static func contentOffset(after end: Int64, size: Int64) -> Int64 {
    size >= cloneMinimum ? rounded(end) : end
  }

  /// `size` rounded up to whole blocks of `cloneAlignment`.
  static func rounded(_ size: Int64) -> Int64 { (size + cloneAlignment - 1) / cloneAlignment * cloneAlignment }

  /// Shares `length` bytes of `source` from `sourceOffset` (0: up to its end) into `target` at
  /// `targetOffset`. False when the file system cannot (or the two are on different ones).
  static func clone(
    from source: Int32, sourceOffset: Int64, length: Int64, to target: Int32, targetOffset: Int64
  ) -> Bool {
    var range: (Int64, UInt64, UInt64, UInt64) = (
      Int64(source), UInt64(sourceOffset), UInt64(length), UInt64(targetOffset)
    )
    return withUnsafeMutableBytes(of: &range) { ioctl(target, ficlonerange, $0.baseAddress!) } == 0
  }
}
