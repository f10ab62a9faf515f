/// Why a state file, cache entry or lock could not be used. Texts name the file.
package enum CacheError: Error, Sendable, CustomStringConvertible {
  case io(String, reason: String)
  case corrupt(String, reason: String)
  case locked(String)
  case invalidSize(String)

  package var description: String {
    switch self {
    case .io(let path, let reason): return "'\(path)': \(reason)"
    case .corrupt(let path, let reason): return "'\(path)' is corrupt (\(reason))"
    case .locked(let path):
      return "another runner holds the lock '\(path)' (run without --no-wait to wait for it)"
    case .invalidSize(let text):
      return "RUNNER_CACHE_MAX takes a size such as 500M, 2G or 1048576, found '\(text)'"
    }
  }
}
