import Glibc

/// A `ProcessSpec` turned into the C strings `execve` wants, built off the reactor thread.
///
/// Building the plan in the caller keeps the reactor thread, which every spawn goes through,
/// down to the system calls.
final class SpawnPlan: @unchecked Sendable {
  // @unchecked: the pointers are written once in init, only read afterwards (by the reactor
  // thread after it receives the plan through a lock-protected queue), and freed in deinit.
  let path: UnsafeMutablePointer<CChar>
  let argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
  let envp: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
  let workingDirectory: UnsafeMutablePointer<CChar>?
  /// What the user asked for, for error messages and the `sh` fallback.
  let spec: ProcessSpec
  var command: String { spec.arguments.first ?? "" }
  let resolvedPath: String
  let workingDirectoryPath: String?
  /// Whether `resolvedPath` came from a PATH search (and may be stale in the cache).
  let searchedPath: Bool

  init(_ spec: ProcessSpec, resolvedPath: String, searchedPath: Bool) {
    self.spec = spec
    self.resolvedPath = resolvedPath
    self.searchedPath = searchedPath
    workingDirectoryPath = spec.workingDirectory
    path = strdup(resolvedPath)!
    // Lazily: no array of some forty tuples (and their retains) per spawn.
    argv = Self.cStrings(spec.arguments.lazy.map { ($0, nil) })
    envp = Self.cStrings(spec.environment.lazy.map { ($0.key, $0.value) })
    workingDirectory = spec.workingDirectory.map { strdup($0)! }
  }

  /// The plan `execvp` falls back to when the kernel cannot exec a file (ENOEXEC): a script
  /// without a `#!` line, run by `/bin/sh`.
  func shellFallback() -> SpawnPlan {
    var fallback = spec
    fallback.arguments = ["/bin/sh", resolvedPath] + spec.arguments.dropFirst()
    return SpawnPlan(fallback, resolvedPath: "/bin/sh", searchedPath: false)
  }

  deinit {
    Glibc.free(path)
    Glibc.free(workingDirectory)
    UnsafeMutableRawPointer(argv).deallocate()
    UnsafeMutableRawPointer(envp).deallocate()
  }

  /// A NULL-terminated array of C strings, `name` or `name=value`, all in one allocation after
  /// the pointers (a task's environment is some forty strings, spawned thousands of times).
  private static func cStrings<Entries: Collection<(String, String?)>>(
    _ entries: Entries
  ) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> {
    let pointerBytes = (entries.count + 1) * MemoryLayout<UnsafeMutablePointer<CChar>?>.stride
    var textBytes = 0
    for (name, value) in entries { textBytes += name.utf8.count + (value.map { $0.utf8.count + 1 } ?? 0) + 1 }
    let block = UnsafeMutableRawPointer.allocate(
      byteCount: pointerBytes + textBytes, alignment: MemoryLayout<UnsafeMutablePointer<CChar>?>.alignment)
    let array = block.bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: entries.count + 1)
    var text = (block + pointerBytes).bindMemory(to: CChar.self, capacity: textBytes)
    var index = 0
    for (name, value) in entries {
      array[index] = text
      index += 1
      text = copy(name, to: text)
      if let value {
        text.pointee = CChar(UInt8(ascii: "="))
        text = copy(value, to: text + 1)
      }
      text.pointee = 0
      text += 1
    }
    array[index] = nil
    return array
  }

  /// Copies the UTF-8 bytes of `string` to `destination`; returns the position after them.
  private static func copy(_ string: String, to destination: UnsafeMutablePointer<CChar>) -> UnsafeMutablePointer<
    CChar
  > {
    var string = string
    return string.withUTF8 { bytes in
      guard let source = bytes.baseAddress, !bytes.isEmpty else { return destination }
      UnsafeMutableRawPointer(destination).copyMemory(from: source, byteCount: bytes.count)
      return destination + bytes.count
    }
  }
}
