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
    argv = Self.cStrings(spec.arguments)
    envp = Self.cStrings(spec.environment.map { "\($0.key)=\($0.value)" })
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
    Self.freeAll(argv)
    Self.freeAll(envp)
  }

  private static func cStrings(_ strings: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> {
    let array = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: strings.count + 1)
    for (index, string) in strings.enumerated() { array[index] = strdup(string) }
    array[strings.count] = nil
    return array
  }

  private static func freeAll(_ array: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) {
    var index = 0
    while let string = array[index] {
      Glibc.free(string)
      index += 1
    }
    array.deallocate()
  }
}
