/// Why a child process could not be started.
package enum SpawnError: Error, Equatable, CustomStringConvertible {
  case executableNotFound(String)
  case permissionDenied(String)
  case workingDirectory(String, errno: Int32)
  case failed(String, errno: Int32)

  package var description: String {
    switch self {
    case .executableNotFound(let name):
      return "command '\(name)' not found"
    case .permissionDenied(let path):
      return "permission denied executing '\(path)'"
    case .workingDirectory(let path, let errno):
      return "cannot change to working directory '\(path)': \(Kernel.describe(errno: errno))"
    case .failed(let what, let errno):
      return "cannot start '\(what)': \(Kernel.describe(errno: errno))"
    }
  }
}
