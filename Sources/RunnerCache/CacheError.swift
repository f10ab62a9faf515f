/// Why a state file, cache entry or lock could not be used. Texts name the file.
package enum CacheError: Error, Sendable, CustomStringConvertible {
  case io(String, reason: String)
  case corrupt(String, reason: String)
  case locked(String)
  case invalidSize(String)
  /// A task of the runner holding the lock started another runner in the same directory.
  case nested(String)

  package var description: String {
    switch self {
    case .io(let path, let reason): return "'\(path)': \(reason)"
    case .corrupt(let path, let reason): return "'\(path)' is corrupt (\(reason))"
    case .locked(let path):
      return "another runner holds the lock '\(path)' (run without --no-wait to wait for it)"
    case .nested(let path):
      return "the runner that started this one holds '\(path)' and waits for this one to end: "
        + "call a task from another with '- task: NAME' in its 'run' list, not by starting runner"
    case .invalidSize(let text):
      return "RUNNER_CACHE_MAX takes a size such as 500M, 2G or 1048576, found '\(text)'"
    }
  }
}
